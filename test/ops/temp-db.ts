import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect } from 'vitest';
import type { ItemOutput, KeyOutput } from '../../src/api/shapes.js';
import type { ScanInput } from '../../src/api/item-operations.js';
import type { CreateTableInput } from '../../src/api/table-operations.js';
import { open, type Edgetable, type OpenOptions } from '../../src/edgetable.js';

export type TempDbs = {
  /** A fresh folder under os.tmpdir(), removed after the test (or the file with `scope: 'file'`). */
  dir(): string;
  /** Opens an engine (on a fresh folder unless `path` is given); closed after the test. */
  open(options?: Partial<OpenOptions>): Edgetable;
};

/** Temp folders and engines made by a test, closed and removed after it (or after the file). */
export function useTempDbs(scope: 'test' | 'file' = 'test'): TempDbs {
  const dirs: string[] = [];
  const dbs: Edgetable[] = [];
  (scope === 'test' ? afterEach : afterAll)(() => {
    for (const db of dbs.splice(0)) if (!db.store.closed) db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dir = (): string => {
    const made = mkdtempSync(join(tmpdir(), 'edgetable-ops-'));
    dirs.push(made);
    return made;
  };
  return {
    dir,
    open(options = {}) {
      const db = open({ ...options, path: options.path ?? join(dir(), 'db') });
      dbs.push(db);
      return db;
    },
  };
}

/** A CreateTable request for an on-demand table with the given keys (and optional partitions). */
export function tableRequest(
  name: string,
  pk: [string, 'S' | 'N' | 'B'],
  sk?: [string, 'S' | 'N' | 'B'],
  partitionCount?: number,
): CreateTableInput {
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: pk[0], KeyType: 'HASH' }, ...(sk ? [{ AttributeName: sk[0], KeyType: 'RANGE' as const }] : [])],
    AttributeDefinitions: [{ AttributeName: pk[0], AttributeType: pk[1] }, ...(sk ? [{ AttributeName: sk[0], AttributeType: sk[1] }] : [])],
    ...(partitionCount !== undefined ? { PartitionCount: partitionCount } : {}),
  };
}

/** Runs `fn`, expecting it to throw an error with DynamoDB's exception `name` and exact `message`. */
export function expectError(fn: () => unknown, name: string, message: string): Error {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, `expected ${name}: ${message}`).toBeInstanceOf(Error);
  const error = thrown as Error;
  expect({ name: error.name, message: error.message }).toEqual({ name, message });
  return error;
}

/** Every item of a table, following LastEvaluatedKey. */
export function scanAll(db: Edgetable, request: ScanInput): ItemOutput[] {
  const items: ItemOutput[] = [];
  let start: KeyOutput | undefined;
  for (;;) {
    const page = db.scan({ ...request, ...(start ? { ExclusiveStartKey: start } : {}) });
    items.push(...(page.Items ?? []));
    if (!page.LastEvaluatedKey) return items;
    start = page.LastEvaluatedKey;
  }
}
