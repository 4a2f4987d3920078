import type { Edgetable } from '../../../src/edgetable.js';
import { SCRATCH_EXISTS, SCRATCH_TABLE, SCRATCH_TABLE_ENTRY, TABLE, keyString, type Item, type Model } from './workload.js';

/** Every item of the crash table, by key, following LastEvaluatedKey. */
export function readTable(db: Edgetable, table = TABLE, model: Model = new Map()): Model {
  let start: unknown;
  do {
    const page = db.execute('Scan', { TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) }) as { Items?: Item[]; LastEvaluatedKey?: unknown };
    for (const item of page.Items ?? []) model.set(keyString(item), item);
    start = page.LastEvaluatedKey;
  } while (start);
  return model;
}

/** The crash table and, when it exists, the Scratch table that comes and goes (workload.ts). */
export function readStore(db: Edgetable): Model {
  const model = readTable(db);
  if (!(db.listTables().TableNames ?? []).includes(SCRATCH_TABLE)) return model;
  model.set(SCRATCH_EXISTS, SCRATCH_TABLE_ENTRY);
  return readTable(db, SCRATCH_TABLE, model);
}
