/** Shared pieces of the sync and hub tests: temp stores, the device table, full-content comparison. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type Edgetable } from '../../src/edgetable.js';

export type Cleanup = () => void | Promise<void>;

export function tempPath(cleanups: Cleanup[], prefix = 'etb-sync-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function tempDb(cleanups: Cleanup[], prefix?: string): { db: Edgetable; path: string } {
  const path = tempPath(cleanups, prefix);
  const db = open({ path });
  cleanups.push(() => {
    if (!db.store.closed) db.close();
  });
  return { db, path };
}

export function createReadings(db: Edgetable, name = 'Readings', partitions = 4): void {
  db.createTable({
    TableName: name,
    KeySchema: [
      { AttributeName: 'sensor', KeyType: 'HASH' },
      { AttributeName: 'ts', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'sensor', AttributeType: 'S' },
      { AttributeName: 'ts', AttributeType: 'N' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: partitions,
  });
}

/** Writes readings [from, to) in BatchWriteItem chunks of 25. */
export function writeReadings(db: Edgetable, from: number, to: number, name = 'Readings', sensors = 64): void {
  for (let i = from; i < to; i += 25) {
    const puts = [];
    for (let j = i; j < Math.min(to, i + 25); j++) {
      puts.push({ PutRequest: { Item: { sensor: { S: `s-${j % sensors}` }, ts: { N: String(j) }, v: { N: String((j * 7) % 1000) }, tag: { S: `r${j}` } } } });
    }
    db.batchWriteItem({ RequestItems: { [name]: puts } });
  }
}

/** Every item of a table, as sorted JSON lines (full contents, order-independent). */
export function tableContents(db: Edgetable, name: string): string[] {
  const out: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = db.execute('Scan', { TableName: name, ...(start ? { ExclusiveStartKey: start } : {}) }) as { Items: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> };
    for (const item of page.Items) out.push(JSON.stringify(Object.keys(item).sort().map((k) => [k, item[k]])));
    start = page.LastEvaluatedKey;
  } while (start);
  return out.sort();
}

export async function until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
