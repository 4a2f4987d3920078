/**
 * The tagging operations through the real AWS SDK v3, over HTTP and in-process: the SDK's
 * commands, its typed exceptions, and the same answers on both transports.
 */
import {
  CreateTableCommand,
  DynamoDBClient,
  ListTagsOfResourceCommand,
  ResourceNotFoundException,
  TagResourceCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { createRequestHandler } from '../../src/server/sdk-request-handler.js';
import { startServer } from '../../src/server/start-server.js';
import { useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs();
const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };

type Transport = { db: Edgetable; client: DynamoDBClient; close(): Promise<void> };

const transports: [string, () => Promise<Transport>][] = [
  [
    'over HTTP',
    async () => {
      const db = temp.open();
      const server = await startServer({ db, port: 0 });
      const client = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: `http://127.0.0.1:${server.port}`, maxAttempts: 1 });
      return { db, client, close: async () => { client.destroy(); await server.close(); } };
    },
  ],
  [
    'in-process',
    async () => {
      const db = temp.open();
      const client = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: 'http://edgetable.local', requestHandler: createRequestHandler(db), maxAttempts: 1 });
      return { db, client, close: async () => client.destroy() };
    },
  ],
];

describe.each(transports)('tags through the AWS SDK, %s', (_name, make) => {
  it('tags, lists and untags a table; a missing table is ResourceNotFoundException', async () => {
    const t = await make();
    try {
      const created = await t.client.send(
        new CreateTableCommand({
          TableName: 'Tagged',
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
          Tags: [{ Key: 'team', Value: 'edge' }],
        }),
      );
      const arn = created.TableDescription!.TableArn!;
      await t.client.send(new TagResourceCommand({ ResourceArn: arn, Tags: [{ Key: 'env', Value: 'test' }] }));
      expect((await t.client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags).toEqual([
        { Key: 'team', Value: 'edge' },
        { Key: 'env', Value: 'test' },
      ]);
      await t.client.send(new UntagResourceCommand({ ResourceArn: arn, TagKeys: ['team'] }));
      expect((await t.client.send(new ListTagsOfResourceCommand({ ResourceArn: arn }))).Tags).toEqual([{ Key: 'env', Value: 'test' }]);
      const missing = arn.replace('table/Tagged', 'table/Missing');
      const error = await t.client.send(new TagResourceCommand({ ResourceArn: missing, Tags: [{ Key: 'a', Value: 'b' }] })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceNotFoundException);
      expect((error as Error).message).toBe(`Requested resource not found: ResourcArn: ${missing} not found`);
      const denied = await t.client.send(new ListTagsOfResourceCommand({ ResourceArn: missing })).catch((e: unknown) => e);
      expect((denied as Error).name).toBe('AccessDeniedException');
      expect((denied as Error).message).toBe(`User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:ListTagsOfResource on resource: ${missing}`);
      const invalid = await t.client.send(new TagResourceCommand({ ResourceArn: 'not-an-arn', Tags: [{ Key: 'a', Value: 'b' }] })).catch((e: unknown) => e);
      expect((invalid as Error).name).toBe('ValidationException');
      expect((invalid as Error).message).toBe('Invalid TableArn: Invalid ResourceArn provided as input not-an-arn');
    } finally {
      await t.close();
    }
  });
});
