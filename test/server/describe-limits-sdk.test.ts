/**
 * DescribeLimits through the real AWS SDK v3, over HTTP and in-process: the SDK's command gets
 * DynamoDB's default quotas, as it does from DynamoDB Local.
 */
import { DescribeLimitsCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createRequestHandler } from '../../src/server/sdk-request-handler.js';
import { startServer } from '../../src/server/start-server.js';
import { useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();
const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };

describe('DescribeLimits through the AWS SDK', () => {
  it('over HTTP', async () => {
    const server = await startServer({ db: temp.open(), port: 0 });
    const client = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: `http://127.0.0.1:${server.port}`, maxAttempts: 1 });
    try {
      const out = await client.send(new DescribeLimitsCommand({}));
      expect(out).toMatchObject({ AccountMaxReadCapacityUnits: 80_000, AccountMaxWriteCapacityUnits: 80_000, TableMaxReadCapacityUnits: 40_000, TableMaxWriteCapacityUnits: 40_000 });
    } finally {
      client.destroy();
      await server.close();
    }
  });

  it('in-process', async () => {
    const client = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: 'http://edgetable.local', requestHandler: createRequestHandler(temp.open()), maxAttempts: 1 });
    try {
      const out = await client.send(new DescribeLimitsCommand({}));
      expect(out).toMatchObject({ AccountMaxReadCapacityUnits: 80_000, AccountMaxWriteCapacityUnits: 80_000, TableMaxReadCapacityUnits: 40_000, TableMaxWriteCapacityUnits: 40_000 });
    } finally {
      client.destroy();
    }
  });
});
