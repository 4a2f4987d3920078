/**
 * The real AWS SDK v3 (@aws-sdk/client-dynamodb, lib-dynamodb) against edgetable, twice: over HTTP
 * to the server on a loopback port, and in-process through createRequestHandler. Both transports
 * run the same suite, and a parity test shows they answer byte for byte alike.
 */
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  DynamoDBServiceException,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  ResourceNotFoundException,
  UpdateItemCommand,
  paginateQuery,
  paginateScan,
  waitUntilTableExists,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand as DocQueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { createRequestHandler } from '../../src/server/sdk-request-handler.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { useTempDbs } from '../ops/temp-db.js';
import { send } from './raw-http.js';

const temp = useTempDbs('file');
const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };

type Transport = { db: Edgetable; client: DynamoDBClient; close(): Promise<void> };

async function overHttp(): Promise<Transport> {
  const db = temp.open();
  const server = await startServer({ db, port: 0 });
  const client = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: `http://127.0.0.1:${server.port}`, maxAttempts: 1 });
  return { db, client, close: async () => { client.destroy(); await server.close(); } };
}

async function inProcess(): Promise<Transport> {
  const db = temp.open();
  const client = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: 'http://edgetable.local', requestHandler: createRequestHandler(db), maxAttempts: 1 });
  return { db, client, close: async () => client.destroy() };
}

const articleKeys = {
  KeySchema: [
    { AttributeName: 'ArticleId', KeyType: 'HASH' as const },
    { AttributeName: 'Part', KeyType: 'RANGE' as const },
  ],
  AttributeDefinitions: [
    { AttributeName: 'ArticleId', AttributeType: 'N' as const },
    { AttributeName: 'Part', AttributeType: 'N' as const },
  ],
};
const part = (article: number, n: number, extra: Record<string, AttributeValue> = {}): Record<string, AttributeValue> => ({
  ArticleId: { N: String(article) },
  Part: { N: String(n) },
  body: { S: `part ${n}` },
  ...extra,
});

describe.each([
  ['over HTTP', overHttp],
  ['in-process', inProcess],
])('DynamoDBClient %s', (_, connect) => {
  let t: Transport;
  beforeAll(async () => {
    t = await connect();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a table, waits for it, lists and describes it', async () => {
    const created = await t.client.send(new CreateTableCommand({ TableName: 'Articles', BillingMode: 'PAY_PER_REQUEST', ...articleKeys }));
    expect(created.TableDescription?.TableName).toBe('Articles');
    const waited = await waitUntilTableExists({ client: t.client, maxWaitTime: 5, minDelay: 1, maxDelay: 1 }, { TableName: 'Articles' });
    expect(waited.state).toBe('SUCCESS');
    expect((await t.client.send(new ListTablesCommand({}))).TableNames).toEqual(['Articles']);
    const described = await t.client.send(new DescribeTableCommand({ TableName: 'Articles' }));
    expect(described.Table?.TableStatus).toBe('ACTIVE');
    expect(described.Table?.KeySchema).toEqual(articleKeys.KeySchema);
    expect(described.Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(described.Table?.CreationDateTime).toBeInstanceOf(Date);
  });

  it('puts, gets, updates and deletes one item, binary and sets included', async () => {
    const item = part(1, 1, { blob: { B: Uint8Array.from([0, 1, 254, 255]) }, tags: { SS: ['a', 'b'] }, nested: { M: { l: { L: [{ N: '1.5' }, { NULL: true }] } } } });
    expect((await t.client.send(new PutItemCommand({ TableName: 'Articles', Item: item }))).$metadata.httpStatusCode).toBe(200);
    const got = await t.client.send(new GetItemCommand({ TableName: 'Articles', Key: { ArticleId: { N: '1' }, Part: { N: '1' } }, ConsistentRead: true }));
    expect(got.Item).toEqual(item);
    expect(got.$metadata.requestId).toMatch(/^[A-Z0-9]{52}$/);

    const updated = await t.client.send(
      new UpdateItemCommand({
        TableName: 'Articles',
        Key: { ArticleId: { N: '1' }, Part: { N: '1' } },
        UpdateExpression: 'SET #v = if_not_exists(#v, :zero) + :one',
        ExpressionAttributeNames: { '#v': 'views' },
        ExpressionAttributeValues: { ':zero': { N: '0' }, ':one': { N: '1' } },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    expect(updated.Attributes).toEqual({ views: { N: '1' } });

    const deleted = await t.client.send(new DeleteItemCommand({ TableName: 'Articles', Key: { ArticleId: { N: '1' }, Part: { N: '1' } }, ReturnValues: 'ALL_OLD' }));
    expect(deleted.Attributes).toEqual({ ...item, views: { N: '1' } });
    expect((await t.client.send(new GetItemCommand({ TableName: 'Articles', Key: { ArticleId: { N: '1' }, Part: { N: '1' } } }))).Item).toBeUndefined();
  });

  it('writes and reads in batches', async () => {
    const items = Array.from({ length: 25 }, (_, i) => part(101, i + 1));
    const written = await t.client.send(new BatchWriteItemCommand({ RequestItems: { Articles: items.map((Item) => ({ PutRequest: { Item } })) } }));
    expect(written.UnprocessedItems).toEqual({});
    const keys = [3, 1, 2, 99].map((n) => ({ ArticleId: { N: '101' }, Part: { N: String(n) } }));
    const read = await t.client.send(new BatchGetItemCommand({ RequestItems: { Articles: { Keys: keys } } }));
    const parts = (read.Responses?.Articles ?? []).map((i) => Number(i.Part?.N)).sort((a, b) => a - b);
    expect(parts).toEqual([1, 2, 3]);
    expect(read.UnprocessedKeys).toEqual({});
  });

  it('pages a Query in Part order and a Scan with the paginators', async () => {
    const seen: number[] = [];
    let pages = 0;
    // A fresh object per call: the paginator writes ExclusiveStartKey into its input.
    const query = () => ({ TableName: 'Articles', KeyConditionExpression: 'ArticleId = :a', ExpressionAttributeValues: { ':a': { N: '101' } } });
    for await (const page of paginateQuery({ client: t.client, pageSize: 7 }, query())) {
      pages++;
      seen.push(...(page.Items ?? []).map((i) => Number(i.Part?.N)));
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(pages).toBe(4); // 7 + 7 + 7 + 4: the last short page carries no LastEvaluatedKey

    const desc = await t.client.send(new QueryCommand({ ...query(), ScanIndexForward: false, Limit: 3 }));
    expect(desc.Items?.map((i) => i.Part?.N)).toEqual(['25', '24', '23']);
    expect(desc.LastEvaluatedKey).toEqual({ ArticleId: { N: '101' }, Part: { N: '23' } });

    let scanned = 0;
    let scanPages = 0;
    for await (const page of paginateScan({ client: t.client, pageSize: 10 }, { TableName: 'Articles' })) {
      scanPages++;
      scanned += page.Count ?? 0;
    }
    expect(scanned).toBe(25);
    expect(scanPages).toBeGreaterThanOrEqual(3);
  });

  it('throws typed exceptions with DynamoDB messages', async () => {
    const key = { ArticleId: { N: '101' }, Part: { N: '1' } };
    const failed = await t.client
      .send(new PutItemCommand({ TableName: 'Articles', Item: part(101, 1), ConditionExpression: 'attribute_not_exists(Part)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }))
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ConditionalCheckFailedException);
    expect((failed as ConditionalCheckFailedException).message).toBe('The conditional request failed');
    expect((failed as ConditionalCheckFailedException).Item).toEqual(part(101, 1));
    expect((failed as ConditionalCheckFailedException).$metadata.httpStatusCode).toBe(400);

    const missing = await t.client.send(new GetItemCommand({ TableName: 'Nowhere', Key: key })).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ResourceNotFoundException);
    expect((missing as Error).message).toBe('Requested resource not found');
    const describeMissing = await t.client.send(new DescribeTableCommand({ TableName: 'Nowhere' })).catch((e: unknown) => e);
    expect((describeMissing as Error).message).toBe('Requested resource not found: Table: Nowhere not found');

    const invalid = await t.client.send(new GetItemCommand({ TableName: 'Articles', Key: { ArticleId: { S: 'x' }, Part: { N: '1' } } })).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(DynamoDBServiceException);
    expect((invalid as Error).name).toBe('ValidationException');
    expect((invalid as Error).message).toBe('The provided key element does not match the schema');

    const badPut = await t.client.send(new PutItemCommand({ TableName: 'Articles', Item: { ArticleId: { N: '5' } } })).catch((e: unknown) => e);
    expect((badPut as Error).name).toBe('ValidationException');
    expect((badPut as Error).message).toBe('One or more parameter values were invalid: Missing the key Part in the item');
  });

  it('serves DynamoDBDocumentClient with native JavaScript values', async () => {
    const doc = DynamoDBDocumentClient.from(t.client);
    await doc.send(new PutCommand({ TableName: 'Articles', Item: { ArticleId: 7, Part: 1, title: 'Edge', tags: new Set(['iot', 'lmdb']), meta: { words: 1200, draft: false } } }));
    await doc.send(new PutCommand({ TableName: 'Articles', Item: { ArticleId: 7, Part: 2, title: 'More' } }));
    const got = await doc.send(new GetCommand({ TableName: 'Articles', Key: { ArticleId: 7, Part: 1 } }));
    expect(got.Item).toEqual({ ArticleId: 7, Part: 1, title: 'Edge', tags: new Set(['iot', 'lmdb']), meta: { words: 1200, draft: false } });
    const up = await doc.send(
      new UpdateCommand({ TableName: 'Articles', Key: { ArticleId: 7, Part: 2 }, UpdateExpression: 'SET title = :t', ExpressionAttributeValues: { ':t': 'Most' }, ReturnValues: 'ALL_NEW' }),
    );
    expect(up.Attributes).toEqual({ ArticleId: 7, Part: 2, title: 'Most' });
    const q = await doc.send(new DocQueryCommand({ TableName: 'Articles', KeyConditionExpression: 'ArticleId = :a', ExpressionAttributeValues: { ':a': 7 } }));
    expect(q.Items?.map((i) => i.title as string)).toEqual(['Edge', 'Most']);
  });
});

describe('the two transports', () => {
  it('answer the same request with the same status, headers and bytes', async () => {
    const db = temp.open();
    db.createTable({ TableName: 'Things', BillingMode: 'PAY_PER_REQUEST', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }] });
    db.putItem({ TableName: 'Things', Item: { id: { S: 'a' }, b: { B: 'AAEC' } } });
    const server = await startServer({ db, port: 0 });
    const handler = createRequestHandler(db);
    try {
      const cases: Array<{ target: string; body: string; contentType?: string }> = [
        { target: 'GetItem', body: '{"TableName":"Things","Key":{"id":{"S":"a"}}}' },
        { target: 'GetItem', body: '{"TableName":"Things","Key":{"id":{"N":"1"}}}' },
        { target: 'Nope', body: '{}' },
        { target: 'ListTables', body: '{not json' },
        { target: 'ListTables', body: '{}', contentType: 'text/plain' },
      ];
      for (const c of cases) {
        const headers = { 'content-type': c.contentType ?? 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${c.target}` };
        const viaHttp = await send(server.port, { headers, body: c.body });
        const { response } = await handler.handle({ method: 'POST', path: '/', headers: { 'Content-Type': headers['content-type'], 'X-Amz-Target': headers['x-amz-target'] }, body: c.body });
        expect(response.statusCode).toBe(viaHttp.status);
        expect(Buffer.from(response.body).toString('utf8')).toBe(viaHttp.text);
        for (const name of ['content-type', 'content-length', 'x-amz-crc32']) expect(response.headers[name]).toBe(viaHttp.headers[name]);
      }
    } finally {
      await server.close();
    }
  });
});
