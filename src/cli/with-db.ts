/**
 * Opens the store at `path` for one command and always closes it. Reading commands open it
 * read-only, so a mistyped path fails instead of creating an empty store.
 */
import type { CheckOnOpen } from '../storage/open-check.js';
import type { KeyOutput } from '../api/shapes.js';
import { open, type Edgetable } from '../edgetable.js';
import type { Durability } from '../storage/store-options.js';

export async function withDb<T>(path: string, run: (db: Edgetable) => T | Promise<T>, options: { readOnly?: boolean; throttling?: boolean; durability?: Durability; checkOnOpen?: CheckOnOpen; checkIntervalMs?: number } = {}): Promise<T> {
  const db = open({ path, readOnly: options.readOnly === true, ...(options.throttling === false ? { throttling: false } : {}), ...(options.durability ? { durability: options.durability } : {}), ...(options.checkOnOpen ? { checkOnOpen: options.checkOnOpen } : {}), ...(options.checkIntervalMs ? { checkIntervalMs: options.checkIntervalMs } : {}) });
  try {
    return await run(db);
  } finally {
    db.close();
  }
}

/**
 * Fails with DescribeTable's ResourceNotFoundException, which names the table
 * (`Requested resource not found: Table: X not found`), before a data-plane operation whose own
 * message, as DynamoDB words it, would not.
 */
export function requireTable(db: Edgetable, table: string): void {
  db.describeTable({ TableName: table });
}

export function printJson(out: (text: string) => void, value: unknown): void {
  out(`${JSON.stringify(value, null, 2)}\n`);
}

/** The table's ItemCount (exact in edgetable: kept by every write); names a missing table. */
export function itemCount(db: Edgetable, table: string): number {
  return db.describeTable({ TableName: table }).Table.ItemCount as number;
}

/** The items a full Scan of the table counts (Select COUNT, every page): what is readable, not what the statistics say. */
export function scannedItemCount(db: Edgetable, table: string): number {
  let count = 0;
  let start: KeyOutput | undefined;
  do {
    const page = db.scan({ TableName: table, Select: 'COUNT', ...(start !== undefined && { ExclusiveStartKey: start }) });
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return count;
}
