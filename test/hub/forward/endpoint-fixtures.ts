/** Reading a forward endpoint back, and comparing it with the hub's table. */
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ScanCommand, type AttributeValue, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { Edgetable } from '../../../src/edgetable.js';
import { VERSION_ATTRIBUTE } from '../../../src/hub/forward/version-attribute.js';
import { tableContents } from '../../sync/fixtures.js';
import { TEST_CREDENTIALS } from './dynalite.js';

export function endpointClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: TEST_CREDENTIALS, maxAttempts: 3 });
}

/**
 * CreateTable at the endpoint, returning once the table is ACTIVE: dynalite (like DynamoDB)
 * answers CreateTable with the table CREATING and refuses item writes to it until then, even
 * with createTableMs 0 (the switch is a later write of its own).
 */
export async function createEndpointTable(client: DynamoDBClient, input: CreateTableCommandInput): Promise<void> {
  await client.send(new CreateTableCommand(input));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: input.TableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`endpoint table ${input.TableName} still ${Table?.TableStatus} after 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
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
