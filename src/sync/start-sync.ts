/**
 * `startSync(options)`: starts a device's sync agent (sync-agent.ts) for `options.tables` and
 * returns its handle. Marks the tables as synced first (their writes are logged with new images
 * from then on, and the items a table holds the first time go up as a base read,
 * replication/base-read.ts), so this throws if a table is missing.
 */
import { SyncError } from './sync-error.js';
import { SyncAgent } from './sync-agent.js';
import { resolveSyncOptions, type SyncHandle, type SyncOptions } from './sync-options.js';
import { isValidDeviceId, isValidNamespace } from './protocol/topics.js';
import { ValidationException } from '../model/errors.js';
import { checkConflictRule, checkConflictRules, type ConflictRules } from '../replication/conflict-rule.js';

export function startSync(options: SyncOptions): SyncHandle {
  if (!isValidDeviceId(options.deviceId)) throw new SyncError(`invalid device id ${JSON.stringify(options.deviceId)}: 1 to 128 of [a-zA-Z0-9_.-]`);
  if (options.tables.length === 0) throw new SyncError('startSync needs at least one table');
  if (options.namespace !== undefined && !isValidNamespace(options.namespace)) {
    throw new ValidationException(`invalid namespace ${JSON.stringify(options.namespace)}: 1 to 8 levels of 1-64 [a-zA-Z0-9_.-] separated by '/'`);
  }
  checkTables(options.tables, checkConflictRules(options.conflicts));
  const agent = new SyncAgent(options.db, resolveSyncOptions(options));
  return {
    caughtUp: () => agent.caughtUp(),
    flushed: () => agent.flushed(),
    settled: () => agent.settled(),
    status: () => agent.status(),
    collectTombstones: () => agent.collectTombstones(),
    stop: () => agent.stop(),
  };
}

const DIRECTIONS: readonly unknown[] = ['up', 'down', 'both'];

function checkTables(tables: SyncOptions['tables'], conflicts: ConflictRules): void {
  const seen = new Set<string>();
  for (const t of tables) {
    const spec = typeof t === 'string' ? { name: t } : t;
    if (typeof spec !== 'object' || spec === null || typeof spec.name !== 'string' || spec.name.length === 0) {
      throw new ValidationException(`startSync tables: each is a table name or { name, direction?, partitionKeys?, conflict? }, not ${JSON.stringify(t)}`);
    }
    if (seen.has(spec.name)) throw new ValidationException(`startSync tables: ${spec.name} is listed twice`);
    seen.add(spec.name);
    if (spec.conflict !== undefined) {
      const rule = checkConflictRule(spec.conflict, `startSync tables: conflict of ${spec.name}`);
      // One rule per table: the same one given twice is fine, two different ones are not.
      const other = Object.hasOwn(conflicts, spec.name) ? conflicts[spec.name] : undefined;
      if (other !== undefined && JSON.stringify(checkConflictRule(other, '')) !== JSON.stringify(rule)) {
        throw new ValidationException(`startSync tables: conflict of ${spec.name} differs from conflicts.${spec.name}; give the rule once`);
      }
    }
    if (spec.direction !== undefined && !DIRECTIONS.includes(spec.direction)) {
      throw new ValidationException(`startSync tables: direction of ${spec.name} must be 'up', 'down' or 'both', not ${JSON.stringify(spec.direction)}`);
    }
    if (spec.partitionKeys === undefined) continue;
    if ((spec.direction ?? 'up') === 'up') throw new ValidationException(`startSync tables: partitionKeys of ${spec.name} need direction 'down' or 'both' (they select what the device receives)`);
    if (!Array.isArray(spec.partitionKeys) || spec.partitionKeys.length === 0) throw new ValidationException(`startSync tables: partitionKeys of ${spec.name} must be a non-empty array (omit it for the whole table)`);
    for (const k of spec.partitionKeys as unknown[]) {
      const ok = (typeof k === 'string' && k.length > 0) || (typeof k === 'number' && Number.isFinite(k)) || k instanceof Uint8Array;
      if (!ok) throw new ValidationException(`startSync tables: partition key ${String(k)} of ${spec.name} must be a non-empty string, a finite number or binary (Uint8Array)`);
    }
  }
}
