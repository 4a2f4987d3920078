/**
 * The tables of `edgetable sync`: `--table` (repeatable) takes `Name`, `Name:direction` or
 * `Name:direction:key1,key2` (partition key values as text: for a numeric key they are read as
 * numbers at the hub); `--tables` takes the JSON array startSync takes, e.g.
 * `["Readings", {"name": "WorkOrders", "direction": "both", "partitionKeys": ["site-7", 42, {"B": "AAEC"}]}]`
 * (binary values as {"B": base64}), and a table's conflict rule as startSync takes it,
 * `"conflict": {"strategy": "version", "attribute": "version"}` (startSync checks it; the same as
 * `--version-attribute WorkOrders=version`).
 */
import type { TableSyncSpec } from '../sync/sync-options.js';
import type { PartitionKeyValue } from '../sync/protocol/down-messages.js';
import { UsageError } from './cli-io.js';

const DIRECTIONS = ['up', 'down', 'both'];

export function parseTableFlag(spec: string): string | TableSyncSpec {
  const [name, direction, keys, ...rest] = spec.split(':');
  if (!name || rest.length > 0) throw new UsageError(`--table ${spec}: expected Name, Name:direction or Name:direction:key1,key2`);
  if (direction === undefined) return name;
  if (!DIRECTIONS.includes(direction)) throw new UsageError(`--table ${spec}: direction must be up, down or both, not ${direction}`);
  if (keys === undefined) return { name, direction: direction as TableSyncSpec['direction'] & string };
  const partitionKeys = keys.split(',');
  if (partitionKeys.some((k) => k.length === 0)) throw new UsageError(`--table ${spec}: empty partition key value`);
  return { name, direction: direction as TableSyncSpec['direction'] & string, partitionKeys };
}

export function parseTablesJson(text: string): (string | TableSyncSpec)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--tables is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new UsageError('--tables must be a JSON array of table names or {"name", "direction", "partitionKeys"} objects');
  return parsed.map((t: unknown) => {
    if (typeof t === 'string') return t;
    if (typeof t !== 'object' || t === null) throw new UsageError(`--tables: ${JSON.stringify(t)} is neither a name nor an object`);
    const o = t as { name?: unknown; direction?: unknown; partitionKeys?: unknown; conflict?: unknown };
    if (typeof o.name !== 'string') throw new UsageError(`--tables: ${JSON.stringify(t)} needs a "name"`);
    if (o.partitionKeys !== undefined && !Array.isArray(o.partitionKeys)) throw new UsageError(`--tables: partitionKeys of ${o.name} must be an array`);
    const partitionKeys = (o.partitionKeys as unknown[] | undefined)?.map((k): PartitionKeyValue => {
      if (typeof k === 'string' || typeof k === 'number') return k;
      if (typeof k === 'object' && k !== null && typeof (k as { B?: unknown }).B === 'string') return Uint8Array.from(Buffer.from((k as { B: string }).B, 'base64'));
      throw new UsageError(`--tables: partition key ${JSON.stringify(k)} of ${o.name} must be a string, a number or {"B": base64}`);
    });
    return {
      name: o.name,
      ...(o.direction !== undefined ? { direction: o.direction as TableSyncSpec['direction'] & string } : {}),
      ...(partitionKeys ? { partitionKeys } : {}),
      ...(o.conflict !== undefined ? { conflict: o.conflict as TableSyncSpec['conflict'] & object } : {}),
    };
  });
}

/**
 * The refusal of a sync whose table to send (direction `up`, the default) is not in the store,
 * naming each such table, the store and the tables it has; undefined when every one is there. A
 * `down` or `both` table may be absent: the hub's definition creates it.
 */
export function missingTablesError(tables: readonly (string | TableSyncSpec)[], has: (name: string) => boolean, path: string, existing: readonly string[]): UsageError | undefined {
  const missing = tables.flatMap((t) => {
    const name = typeof t === 'string' ? t : t.name;
    const direction = typeof t === 'string' ? 'up' : (t.direction ?? 'up');
    return direction === 'up' && !has(name) ? [name] : [];
  });
  if (missing.length === 0) return undefined;
  const list = missing.join(', ');
  const there = existing.length === 0 ? 'it has no tables' : `its tables: ${existing.join(', ')}`;
  return new UsageError(
    `--table ${list}: no such table in ${path} (${there}); create ${missing.length === 1 ? 'it' : 'them'} first (edgetable create-table), or receive ${missing.length === 1 ? 'it' : 'them'} from the hub with ${missing[0]}:down`,
  );
}
