/**
 * What the fleet ended with, read once every process has stopped: each table's items and version
 * records at the hub and on every device (the convergence harness's readCopy), the endpoint's
 * items (a Scan of dynalite through the AWS SDK, without the forwarder's version attribute), and
 * the hub's dead letters, each as the (table, key) it names.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { open } from '../../src/edgetable.js';
import { DEAD_LETTER_TABLE } from '../../src/replication/dead-letters.js';
import { VERSION_ATTRIBUTE } from '../../src/hub/forward/version-attribute.js';
import type { Version } from '../../src/replication/hub-records.js';
import { readCopy } from '../sync/harness/cluster.js';
import type { WireItem } from '../sync/harness/oracle.js';
import { keyOf } from '../sync/harness/workload.js';

export type Copy = { readonly items: Map<string, WireItem>; readonly versions: Map<string, Version> };

/** A dead letter: the table and key it names, and who refused it ('forward': the endpoint; 'hub': the hub's apply). */
export type DeadLetter = { readonly source: 'forward' | 'hub'; readonly table: string; readonly key: string; readonly reason: string };

export function readCopies(path: string, tables: readonly string[], keys: ReadonlyMap<string, Set<string>>): Map<string, Copy> {
  return new Map(tables.map((t) => [t, readCopy(path, t, keys.get(t) ?? new Set())] as const));
}

export async function readEndpoint(endpoint: string, credentials: { accessKeyId: string; secretAccessKey: string }, tables: readonly string[]): Promise<Map<string, Map<string, WireItem>>> {
  const client = new DynamoDBClient({ region: 'us-east-1', endpoint, credentials, maxAttempts: 3 });
  const out = new Map<string, Map<string, WireItem>>();
  try {
    for (const table of tables) {
      const items = new Map<string, WireItem>();
      let start: Record<string, unknown> | undefined;
      try {
        do {
          const page = await client.send(new ScanCommand({ TableName: table, ...(start ? { ExclusiveStartKey: start as never } : {}) }));
          for (const raw of page.Items ?? []) {
            const { [VERSION_ATTRIBUTE]: _v, ...item } = raw as unknown as WireItem;
            items.set(keyOf(item['site']!['S'] as string, item['job']!['S'] as string), item);
          }
          start = page.LastEvaluatedKey;
        } while (start);
      } catch (err) {
        if ((err as Error).name !== 'ResourceNotFoundException') throw err;
      }
      out.set(table, items);
    }
  } finally {
    client.destroy();
  }
  return out;
}

export function readDeadLetters(hubPath: string): DeadLetter[] {
  const db = open({ path: hubPath });
  try {
    const have = (db.execute('ListTables', {}) as { TableNames: string[] }).TableNames;
    if (!have.includes(DEAD_LETTER_TABLE)) return [];
    const out: DeadLetter[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = db.execute('Scan', { TableName: DEAD_LETTER_TABLE, ...(start ? { ExclusiveStartKey: start } : {}) }) as { Items: WireItem[]; LastEvaluatedKey?: Record<string, unknown> };
      for (const item of page.Items) {
        const key = item['key']?.['M'] as WireItem | undefined;
        out.push({
          source: item['source']?.['S'] === 'forward' ? 'forward' : 'hub',
          table: (item['table']?.['S'] as string | undefined) ?? '?',
          key: key ? keyOf(key['site']?.['S'] as string, key['job']?.['S'] as string) : `${item['stream']?.['S']}#${item['seq']?.['N']}`,
          reason: (item['reason']?.['S'] as string | undefined) ?? '',
        });
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  } finally {
    db.close();
  }
}
