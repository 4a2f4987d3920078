/**
 * PartiQL through the real @aws-sdk/client-dynamodb (ExecuteStatementCommand,
 * BatchExecuteStatementCommand, ExecuteTransactionCommand), over HTTP and in-process: SELECT as
 * GetItem / Query / Scan (projections, key conditions, filters, ORDER BY, indexes, Limit and
 * NextToken, ConsistentRead, ReturnConsumedCapacity), INSERT, UPDATE, DELETE with conditions and
 * `?` parameters, DynamoDB's errors, and that writes reach the change log like any other write.
 */
import {
  BatchExecuteStatementCommand,
  ConditionalCheckFailedException,
  CreateTableCommand,
  DuplicateItemException,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  GetItemCommand,
  PutItemCommand,
  ResourceNotFoundException,
  TransactionCanceledException,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand, DescribeStreamCommand } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDbs } from '../ops/temp-db.js';
import { openClients, type Clients } from '../streams-api/streams-client.js';

const temp = useTempDbs();
let open: Clients[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

const S = (s: string): AttributeValue => ({ S: s });
const N = (n: number): AttributeValue => ({ N: String(n) });

async function ordersTable(c: Clients): Promise<void> {
  await c.dynamo.send(
    new CreateTableCommand({
      TableName: 'Orders',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'customer', KeyType: 'HASH' },
        { AttributeName: 'order', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'customer', AttributeType: 'S' },
        { AttributeName: 'order', AttributeType: 'N' },
        { AttributeName: 'status', AttributeType: 'S' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byStatus',
          KeySchema: [
            { AttributeName: 'status', KeyType: 'HASH' },
            { AttributeName: 'order', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  for (const [customer, order, status, total] of [
    ['ann', 1, 'open', 10],
    ['ann', 2, 'shipped', 25],
    ['ann', 3, 'open', 40],
    ['bob', 1, 'open', 5],
  ] as const) {
    await c.dynamo.send(new PutItemCommand({ TableName: 'Orders', Item: { customer: S(customer), order: N(order), status: S(status), total: N(total) } }));
  }
}

describe.each(['http', 'in-process'] as const)('PartiQL over %s', (transport) => {
  const connect = async () => {
    const c = await openClients(temp, transport);
    open.push(c);
    await ordersTable(c);
    return c;
  };
  const run = (c: Clients, Statement: string, extra: Record<string, unknown> = {}) => c.dynamo.send(new ExecuteStatementCommand({ Statement, ...extra }));
  const orders = (items: Record<string, AttributeValue>[] | undefined) => (items ?? []).map((i) => `${i.customer?.S}/${i.order?.N}`);

  it('SELECT by full key is a GetItem: one item, eventually consistent half a unit, projection', async () => {
    const c = await connect();
    const r = await run(c, `SELECT "order", total FROM "Orders" WHERE customer = 'ann' AND "order" = 2`, { ReturnConsumedCapacity: 'TOTAL' });
    expect(r.Items).toEqual([{ order: N(2), total: N(25) }]);
    expect(r.ConsumedCapacity).toEqual({ TableName: 'Orders', CapacityUnits: 0.5 });
    const strong = await run(c, `SELECT * FROM Orders WHERE customer = ? AND "order" = ?`, { Parameters: [S('ann'), N(2)], ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' });
    expect(strong.Items).toEqual([{ customer: S('ann'), order: N(2), status: S('shipped'), total: N(25) }]);
    expect(strong.ConsumedCapacity).toEqual({ TableName: 'Orders', CapacityUnits: 1 });
    expect((await run(c, `SELECT * FROM Orders WHERE customer = 'zed' AND "order" = 1`)).Items).toEqual([]);
  });

  it('SELECT on the partition key is a Query: sort key conditions, filters, ORDER BY, Limit and NextToken', async () => {
    const c = await connect();
    expect(orders((await run(c, `SELECT * FROM Orders WHERE customer = 'ann'`)).Items)).toEqual(['ann/1', 'ann/2', 'ann/3']);
    expect(orders((await run(c, `SELECT * FROM Orders WHERE customer = 'ann' ORDER BY "order" DESC`)).Items)).toEqual(['ann/3', 'ann/2', 'ann/1']);
    expect(orders((await run(c, `SELECT * FROM Orders WHERE customer = 'ann' AND "order" BETWEEN 2 AND 3`)).Items)).toEqual(['ann/2', 'ann/3']);
    expect(orders((await run(c, `SELECT * FROM Orders WHERE customer = 'ann' AND "order" >= 2 AND status = 'open'`)).Items)).toEqual(['ann/3']);
    expect(orders((await run(c, `SELECT * FROM Orders WHERE customer = 'ann' AND total > 20 AND NOT status = 'shipped'`)).Items)).toEqual(['ann/3']);

    const pages: string[][] = [];
    let NextToken: string | undefined;
    do {
      const r = await run(c, `SELECT * FROM Orders WHERE customer = 'ann'`, { Limit: 2, ...(NextToken ? { NextToken } : {}) });
      pages.push(orders(r.Items));
      NextToken = r.NextToken;
    } while (NextToken);
    expect(pages).toEqual([['ann/1', 'ann/2'], ['ann/3'], []].slice(0, pages.length));
    expect(pages.flat()).toEqual(['ann/1', 'ann/2', 'ann/3']);
  });

  it('SELECT without a key equality is a Scan with a filter; an index is "Table"."Index"', async () => {
    const c = await connect();
    const scan = await run(c, `SELECT customer, "order" FROM Orders WHERE total >= 10 AND status IN ['open', 'shipped']`, { ReturnConsumedCapacity: 'TOTAL' });
    expect(orders(scan.Items).sort()).toEqual(['ann/1', 'ann/2', 'ann/3']);
    expect(orders((await run(c, `SELECT * FROM Orders`)).Items)).toHaveLength(4);
    expect(orders((await run(c, `SELECT * FROM Orders WHERE begins_with(customer, 'b')`)).Items)).toEqual(['bob/1']);
    expect(orders((await run(c, `SELECT * FROM Orders WHERE note IS MISSING AND total < 10`)).Items)).toEqual(['bob/1']);
    const byStatus = await run(c, `SELECT * FROM "Orders"."byStatus" WHERE status = 'open' ORDER BY "order" DESC`);
    expect(orders(byStatus.Items)).toEqual(['ann/3', expect.stringMatching(/^(ann|bob)\/1$/), expect.stringMatching(/^(ann|bob)\/1$/)]);
    await expect(run(c, `SELECT * FROM "Orders"."nope" WHERE status = 'open'`)).rejects.toMatchObject({ name: 'ValidationException', message: 'The table does not have the specified index: nope' });
  });

  it('INSERT adds an item and fails with DuplicateItemException when the key exists', async () => {
    const c = await connect();
    await run(c, `INSERT INTO Orders VALUE {'customer': 'cat', 'order': 1, 'status': 'open', 'tags': <<'a', 'b'>>, 'lines': [1, 'two', {'x': true}], 'gift': NULL}`);
    const got = await c.dynamo.send(new GetItemCommand({ TableName: 'Orders', Key: { customer: S('cat'), order: N(1) } }));
    expect(got.Item).toEqual({ customer: S('cat'), order: N(1), status: S('open'), tags: { SS: ['a', 'b'] }, lines: { L: [N(1), S('two'), { M: { x: { BOOL: true } } }] }, gift: { NULL: true } });
    await expect(run(c, `INSERT INTO Orders VALUE {'customer': 'cat', 'order': 1}`)).rejects.toBeInstanceOf(DuplicateItemException);
    await expect(run(c, `INSERT INTO Orders VALUE {'customer': 'cat', 'order': 1}`)).rejects.toMatchObject({ message: 'Duplicate primary key exists in table' });
    await run(c, `INSERT INTO Orders VALUE ?`, { Parameters: [{ M: { customer: S('dan'), order: N(1) } }] });
    expect(orders((await run(c, `SELECT * FROM Orders WHERE customer = 'dan'`)).Items)).toEqual(['dan/1']);
  });

  it('UPDATE sets and removes attributes under conditions; a missing item fails the condition', async () => {
    const c = await connect();
    await run(c, `UPDATE Orders SET total = total + 5, note = ? REMOVE status WHERE customer = 'ann' AND "order" = 1`, { Parameters: [S('rush')] });
    expect((await run(c, `SELECT * FROM Orders WHERE customer = 'ann' AND "order" = 1`)).Items).toEqual([{ customer: S('ann'), order: N(1), total: N(15), note: S('rush') }]);
    await expect(run(c, `UPDATE Orders SET total = 0 WHERE customer = 'ann' AND "order" = 1 AND total > 100`)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await expect(run(c, `UPDATE Orders SET total = 0 WHERE customer = 'zed' AND "order" = 1`)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    expect((await run(c, `SELECT * FROM Orders WHERE customer = 'zed'`)).Items).toEqual([]);
    await run(c, `UPDATE Orders SET tags = set_add(tags, <<'a', 'b'>>) WHERE customer = 'ann' AND "order" = 3`);
    await run(c, `UPDATE Orders SET tags = set_delete(tags, <<'a'>>), lines = list_append([1], [2]) WHERE customer = 'ann' AND "order" = 3`);
    expect((await run(c, `SELECT tags, lines FROM Orders WHERE customer = 'ann' AND "order" = 3`)).Items).toEqual([{ tags: { SS: ['b'] }, lines: { L: [N(1), N(2)] } }]);
    const returned = await run(c, `UPDATE Orders SET total = 7 WHERE customer = 'bob' AND "order" = 1 RETURNING MODIFIED OLD *`);
    expect(returned.Items).toEqual([{ total: N(5) }]);
    const all = await run(c, `UPDATE Orders SET total = 8 WHERE customer = 'bob' AND "order" = 1 RETURNING ALL NEW *`);
    expect(all.Items).toEqual([{ customer: S('bob'), order: N(1), status: S('open'), total: N(8) }]);
    await expect(run(c, `UPDATE Orders SET total = 0 WHERE customer = 'ann'`)).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Where clause does not contain a mandatory equality on all key attributes',
    });
  });

  it('DELETE removes by key, under a condition when given', async () => {
    const c = await connect();
    await expect(run(c, `DELETE FROM Orders WHERE customer = 'ann' AND "order" = 2 AND status = 'open'`)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await run(c, `DELETE FROM Orders WHERE customer = 'ann' AND "order" = 2 AND status = 'shipped'`);
    await run(c, `DELETE FROM Orders WHERE customer = 'ann' AND "order" = 9`);
    expect((await run(c, `DELETE FROM Orders WHERE customer = 'bob' AND "order" = 1 RETURNING ALL OLD *`)).Items).toEqual([{ customer: S('bob'), order: N(1), status: S('open'), total: N(5) }]);
    expect(orders((await run(c, `SELECT * FROM Orders WHERE customer = 'ann'`)).Items)).toEqual(['ann/1', 'ann/3']);
  });

  it('PartiQL writes reach the stream like any other write', async () => {
    const c = await connect();
    await run(c, `INSERT INTO Orders VALUE {'customer': 'eve', 'order': 1, 'total': 1}`);
    await run(c, `UPDATE Orders SET total = 2 WHERE customer = 'eve' AND "order" = 1`);
    await run(c, `DELETE FROM Orders WHERE customer = 'eve' AND "order" = 1`);
    const arn = c.db.describeTable({ TableName: 'Orders' }).Table.LatestStreamArn as string;
    const shard = (await c.streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!.Shards![0]!.ShardId!;
    const it0 = (await c.streams.send(new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator!;
    const records = (await c.streams.send(new GetRecordsCommand({ ShardIterator: it0 }))).Records!.filter((r) => r.dynamodb!.Keys!.customer!.S === 'eve');
    expect(records.map((r) => [r.eventName, r.dynamodb!.NewImage?.total?.N, r.dynamodb!.OldImage?.total?.N])).toEqual([
      ['INSERT', '1', undefined],
      ['MODIFY', '2', '1'],
      ['REMOVE', undefined, '2'],
    ]);
  });

  it("answers bad statements with DynamoDB's errors", async () => {
    const c = await connect();
    await expect(run(c, `SELEC * FROM Orders`)).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/^Statement wasn't well formed, can't be processed: /) });
    await expect(run(c, `SELECT * FROM Orders WHERE customer = ?`)).rejects.toMatchObject({ name: 'ValidationException', message: "Number of parameters in request and statement don't match." });
    await expect(run(c, `SELECT * FROM Nothing`)).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(run(c, `SELECT * FROM Orders ORDER BY "order"`)).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(run(c, '')).rejects.toMatchObject({ name: 'ValidationException', message: "1 validation error detected: Value '' at 'statement' failed to satisfy constraint: Member must have length greater than or equal to 1" });
  });

  it('BatchExecuteStatement runs up to 25 reads or writes, each failing on its own', async () => {
    const c = await connect();
    const writes = await c.dynamo.send(
      new BatchExecuteStatementCommand({
        Statements: [
          { Statement: `INSERT INTO Orders VALUE {'customer': 'fay', 'order': 1}` },
          { Statement: `INSERT INTO Orders VALUE {'customer': 'ann', 'order': 1}` },
          { Statement: `UPDATE Orders SET total = ? WHERE customer = 'bob' AND "order" = 1`, Parameters: [N(6)] },
          { Statement: `DELETE FROM Orders WHERE customer = 'ann' AND "order" = 3` },
        ],
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(writes.Responses!.map((r) => r.Error?.Code ?? r.TableName)).toEqual(['Orders', 'DuplicateItem', 'Orders', 'Orders']);
    expect(writes.ConsumedCapacity).toEqual([{ TableName: 'Orders', CapacityUnits: expect.any(Number) }]);
    const returned = await c.dynamo.send(
      new BatchExecuteStatementCommand({
        Statements: [
          { Statement: `UPDATE Orders SET total = 6 WHERE customer = 'bob' AND "order" = 1 RETURNING MODIFIED OLD *` },
          { Statement: `UPDATE Orders SET total = 8 WHERE customer = 'bob' AND "order" = 1 AND total = 0`, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
        ],
      }),
    );
    expect(returned.Responses![0]!.Item).toEqual({ total: N(6) });
    expect(returned.Responses![1]!.Error).toEqual({ Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { customer: S('bob'), order: N(1), status: S('open'), total: N(6) } });
    const reads = await c.dynamo.send(
      new BatchExecuteStatementCommand({
        Statements: [
          { Statement: `SELECT * FROM Orders WHERE customer = 'bob' AND "order" = 1` },
          { Statement: `SELECT * FROM Orders WHERE customer = 'ann' AND "order" = 3` },
          { Statement: `SELECT * FROM Orders WHERE customer = 'ann'` },
          { Statement: `SELECT * FROM Nothing WHERE customer = 'ann' AND "order" = 3` },
        ],
      }),
    );
    expect(reads.Responses![0]!.Item).toEqual({ customer: S('bob'), order: N(1), status: S('open'), total: N(6) });
    expect(reads.Responses![1]).toEqual({ TableName: 'Orders' });
    expect(reads.Responses![2]!.Error!.Code).toBe('ValidationError');
    expect(reads.Responses![3]!.Error!.Code).toBe('ResourceNotFound');
    await expect(c.dynamo.send(new BatchExecuteStatementCommand({ Statements: Array.from({ length: 26 }, () => ({ Statement: `SELECT * FROM Orders WHERE customer = 'a' AND "order" = 1` })) }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining("at 'statements' failed to satisfy constraint: Member must have length less than or equal to 25"),
    });
    await expect(
      c.dynamo.send(new BatchExecuteStatementCommand({ Statements: [{ Statement: `SELECT * FROM Orders WHERE customer = 'a' AND "order" = 1` }, { Statement: `DELETE FROM Orders WHERE customer = 'a' AND "order" = 1` }] })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('ExecuteTransaction writes all or nothing, is idempotent by ClientRequestToken, and reads by key', async () => {
    const c = await connect();
    const failed = c.dynamo.send(
      new ExecuteTransactionCommand({
        TransactStatements: [
          { Statement: `INSERT INTO Orders VALUE {'customer': 'gus', 'order': 1}` },
          { Statement: `INSERT INTO Orders VALUE {'customer': 'ann', 'order': 1}` },
        ],
      }),
    );
    await expect(failed).rejects.toBeInstanceOf(TransactionCanceledException);
    const reasons = ((await failed.catch((e: unknown) => e)) as TransactionCanceledException).CancellationReasons;
    expect(reasons!.map((r) => r.Code)).toEqual(['None', 'DuplicateItem']);
    expect((await run(c, `SELECT * FROM Orders WHERE customer = 'gus'`)).Items).toEqual([]);

    const tx = {
      TransactStatements: [
        { Statement: `INSERT INTO Orders VALUE {'customer': 'gus', 'order': 1, 'total': 1}` },
        { Statement: `UPDATE Orders SET total = total + 1 WHERE customer = 'bob' AND "order" = 1` },
        { Statement: `EXISTS(SELECT * FROM Orders WHERE customer = 'ann' AND "order" = 2 AND status = 'shipped')` },
      ],
      ClientRequestToken: 'token-1',
    };
    expect((await c.dynamo.send(new ExecuteTransactionCommand(tx))).Responses).toEqual([]);
    await c.dynamo.send(new ExecuteTransactionCommand(tx)); // replayed: applied once
    const read = await c.dynamo.send(
      new ExecuteTransactionCommand({
        TransactStatements: [
          { Statement: `SELECT total FROM Orders WHERE customer = 'bob' AND "order" = 1` },
          { Statement: `SELECT * FROM Orders WHERE customer = ? AND "order" = ?`, Parameters: [S('gus'), N(1)] },
        ],
      }),
    );
    expect(read.Responses).toEqual([{ Item: { total: N(6) } }, { Item: { customer: S('gus'), order: N(1), total: N(1) } }]);
    await expect(
      c.dynamo.send(new ExecuteTransactionCommand({ TransactStatements: [{ Statement: `EXISTS(SELECT * FROM Orders WHERE customer = 'ann' AND "order" = 2 AND status = 'open')` }, { Statement: `DELETE FROM Orders WHERE customer = 'bob' AND "order" = 1` }] })),
    ).rejects.toBeInstanceOf(TransactionCanceledException);
  });
});
