/**
 * What a new user does against a fresh provisioned table (5 RCU / 5 WCU, as templates create
 * them), through the AWS SDK over HTTP: parallel setup writes, a 400 KB item, a transaction. All
 * pass, as on DynamoDB, whose new tables start with their burst capacity available.
 */
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/start-server.js';
import { useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();

describe('a fresh 5/5 provisioned table over HTTP', () => {
  it('accepts parallel setup writes, a 400 KB item and a 25-item transaction without throttling', async () => {
    const db = temp.open({ durability: 'relaxed' });
    const server = await startServer({ db, port: 0 });
    const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, endpoint: `http://127.0.0.1:${server.port}`, maxAttempts: 1 });
    try {
      await client.send(
        new CreateTableCommand({
          TableName: 'Tutorial',
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
        }),
      );
      const kb = 'x'.repeat(1000);
      await Promise.all(Array.from({ length: 100 }, (_, i) => client.send(new PutItemCommand({ TableName: 'Tutorial', Item: { pk: { S: `k${i}` }, data: { S: kb } } }))));
      const big = await client.send(new PutItemCommand({ TableName: 'Tutorial', Item: { pk: { S: 'big' }, data: { S: 'x'.repeat(400_000) } }, ReturnConsumedCapacity: 'TOTAL' }));
      expect(big.ConsumedCapacity?.CapacityUnits).toBe(391);
      await client.send(new TransactWriteItemsCommand({ TransactItems: Array.from({ length: 25 }, (_, i) => ({ Put: { TableName: 'Tutorial', Item: { pk: { S: `t${i}` } } } })) }));
      const got = await client.send(new GetItemCommand({ TableName: 'Tutorial', Key: { pk: { S: 't24' } }, ConsistentRead: true }));
      expect(got.Item).toEqual({ pk: { S: 't24' } });
    } finally {
      client.destroy();
      await server.close();
    }
  }, 60_000);
});
