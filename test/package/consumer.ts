/**
 * A consumer's view of the public types: type-checked, never run. The typecheck step checks it
 * against src/ (tsconfig.json); test/package/package-check.sh checks it against the packed
 * package's .d.ts, importing 'edgetable', under strict + exactOptionalPropertyTypes. Each
 * `@ts-expect-error` line is a mistake the types must catch: if one compiles, tsc fails.
 */
import {
  ConditionalCheckFailedException,
  open,
  startBridge,
  startHub,
  type AttributeValue,
  type CreateTableInput,
  type Edgetable,
  type Hub,
  type ItemOutput,
  type PutItemOutput,
  type QueryInput,
} from '../../src/index.js';

const READINGS: CreateTableInput = {
  TableName: 'Readings',
  KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
  AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
  BillingMode: 'PAY_PER_REQUEST',
};

export function wellTyped(path: string): string | undefined {
  const db: Edgetable = open({ path, durability: 'relaxed' });
  db.createTable(READINGS);
  const reading: Record<string, AttributeValue> = { sensorId: { S: 's-1' }, ts: { N: '1700000000000' }, raw: { B: new Uint8Array([1]) }, ok: { NULL: true } };
  const put: PutItemOutput = db.putItem({ TableName: 'Readings', Item: reading, ConditionExpression: 'attribute_not_exists(ts)', ReturnValues: 'ALL_OLD' });
  const request: QueryInput = {
    TableName: 'Readings',
    KeyConditionExpression: 'sensorId = :s AND ts > :from',
    ExpressionAttributeValues: { ':s': { S: 's-1' }, ':from': { N: '0' } },
    ExpressionAttributeNames: { '#t': 'ts' },
    ScanIndexForward: false,
    Limit: 10,
  };
  const page = db.query(request);
  const items: ItemOutput[] = page.Items ?? [];
  const next = page.LastEvaluatedKey ? db.query({ ...request, ExclusiveStartKey: page.LastEvaluatedKey }) : undefined;
  const got = db.getItem({ TableName: 'Readings', Key: { sensorId: { S: 's-1' }, ts: { N: '1700000000000' } }, ConsistentRead: true });
  const raw: string | undefined = got.Item?.['raw']?.B; // binary comes back as base64
  const viaExecute = db.execute('GetItem', { TableName: 'Readings', Key: { sensorId: { S: 's-1' }, ts: { N: '1' } } });
  const n: string | undefined = viaExecute.Item?.['ts']?.N;
  try {
    db.updateItem({ TableName: 'Readings', Key: { sensorId: { S: 's-1' }, ts: { N: '1' } }, UpdateExpression: 'SET t = :t', ExpressionAttributeValues: { ':t': { N: '2' } }, ConditionExpression: 'attribute_exists(ts)' });
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
  db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'Readings', Item: reading } }, { Delete: { TableName: 'Readings', Key: { sensorId: { S: 's-2' }, ts: { N: '1' } } } }] });
  db.batchWriteItem({ RequestItems: { Readings: [{ PutRequest: { Item: reading } }, { DeleteRequest: { Key: { sensorId: { S: 's-3' }, ts: { N: '1' } } } }] } });
  db.close();
  return `${put.Attributes ? 1 : 0}${items.length}${next?.Count ?? 0}${raw ?? ''}${n ?? ''}`;
}

export async function services(db: Edgetable): Promise<Hub> {
  const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 5780 } });
  await bridge.stop();
  return startHub({ path: './hub', url: 'mqtt://127.0.0.1:1883' });
}

export function mistakesTheTypesCatch(db: Edgetable): void {
  // @ts-expect-error misspelled member (TableNme)
  db.putItem({ TableNme: 'Readings', Item: {} });
  // @ts-expect-error Item is required
  db.putItem({ TableName: 'Readings' });
  // @ts-expect-error an attribute value names exactly one type
  db.putItem({ TableName: 'Readings', Item: { a: { S: 'x', N: '1' } } });
  // @ts-expect-error X is not an attribute type
  db.putItem({ TableName: 'Readings', Item: { a: { X: 'x' } } });
  // @ts-expect-error numbers are strings on the wire
  db.putItem({ TableName: 'Readings', Item: { a: { N: 1 } } });
  // @ts-expect-error PutItem's ReturnValues are NONE and ALL_OLD
  db.putItem({ TableName: 'Readings', Item: {}, ReturnValues: 'ALL_NEW' });
  // @ts-expect-error misspelled member (KeyConditionExpresion)
  db.query({ TableName: 'Readings', KeyConditionExpresion: 'sensorId = :s' });
  // @ts-expect-error value placeholders start with ':'
  db.query({ TableName: 'Readings', KeyConditionExpression: 'sensorId = :s', ExpressionAttributeValues: { s: { S: 'x' } } });
  // @ts-expect-error Key is required
  db.getItem({ TableName: 'Readings' });
  // @ts-expect-error KeyType is HASH or RANGE
  db.createTable({ ...READINGS, KeySchema: [{ AttributeName: 'id', KeyType: 'PRIMARY' }] });
  // @ts-expect-error a transact item holds one action
  db.transactWriteItems({ TransactItems: [{ Put: { TableName: 'R', Item: {} }, Delete: { TableName: 'R', Key: {} } }] });
  // @ts-expect-error execute() with a literal name and a well-formed request returns that operation's output
  const typed: string = db.execute('Query', { TableName: 'Readings', KeyConditionExpression: 'x = :x' }).Count;
  // @ts-expect-error binary values come back as base64 strings
  const bytes: Uint8Array | undefined = db.getItem({ TableName: 'Readings', Key: {} }).Item?.['raw']?.B;
  void typed;
  void bytes;
}
