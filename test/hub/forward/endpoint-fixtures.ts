/** Reading a forward endpoint back, and comparing it with the hub's table. */
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Edgetable } from '../../../src/edgetable.js';
import { VERSION_ATTRIBUTE } from '../../../src/hub/forward/version-attribute.js';
import { tableContents } from '../../sync/fixtures.js';
import { TEST_CREDENTIALS } from './dynalite.js';

export function endpointClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: TEST_CREDENTIALS, maxAttempts: 3 });
}

export async function scanEndpoint(client: DynamoDBClient, table: string): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The endpoint's items without the version attribute, in tableContents' form. */
export async function endpointContents(client: DynamoDBClient, table: string): Promise<string[]> {
  return (await scanEndpoint(client, table))
    .map((item) => {
      const { [VERSION_ATTRIBUTE]: _v, ...rest } = item;
      return JSON.stringify(Object.keys(rest).sort().map((k) => [k, rest[k]]));
    })
    .sort();
}

export function hubContents(db: Edgetable, table: string): string[] {
  return tableContents(db, table);
}
