/**
 * DescribeEndpoints through the real AWS SDK v3: over HTTP the one endpoint is the address the
 * client reached the server by (what endpoint discovery calls next), cached 1,440 minutes as
 * DynamoDB's answer is; the embedded API answers `localhost`.
 */
import { DescribeEndpointsCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/start-server.js';
import { useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();
const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };

describe('DescribeEndpoints', () => {
  it('over HTTP, names the host the client used', async () => {
    const server = await startServer({ db: temp.open(), port: 0 });
    const client = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: `http://127.0.0.1:${server.port}`, maxAttempts: 1 });
    try {
      const out = await client.send(new DescribeEndpointsCommand({}));
      expect(out.Endpoints).toEqual([{ Address: `127.0.0.1:${server.port}`, CachePeriodInMinutes: 1440 }]);
    } finally {
      client.destroy();
      await server.close();
    }
  });

  it('embedded, through the facade and db.promises', async () => {
    const db = temp.open();
    expect(db.describeEndpoints()).toEqual({ Endpoints: [{ Address: 'localhost', CachePeriodInMinutes: 1440 }] });
    expect(await db.promises.describeEndpoints()).toEqual({ Endpoints: [{ Address: 'localhost', CachePeriodInMinutes: 1440 }] });
  });
});
