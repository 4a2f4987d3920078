import type { Edgetable } from '../../../src/edgetable.js';
import { TABLE, keyString, type Item, type Model } from './workload.js';

/** Every item of the crash table, by key, following LastEvaluatedKey. */
export function readTable(db: Edgetable): Model {
  const model: Model = new Map();
  let start: unknown;
  do {
    const page = db.execute('Scan', { TableName: TABLE, ...(start ? { ExclusiveStartKey: start } : {}) }) as { Items?: Item[]; LastEvaluatedKey?: unknown };
    for (const item of page.Items ?? []) model.set(keyString(item), item);
    start = page.LastEvaluatedKey;
  } while (start);
  return model;
}
