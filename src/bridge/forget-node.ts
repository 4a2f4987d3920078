/**
 * An operator's way out of a node's dedup state: `edgetable bridge-forget <device>` removes the
 * device's item from the bridge's state table, so its next frame, of any boot, starts a new
 * stream. For a node whose boot ids went backwards for good (a boot id taken from a clock that
 * was far ahead, a counter reset by a firmware flash): every frame of it is refused as staleBoot
 * until then. Forgetting costs exactly-once for that node's frames in flight: a resend of one
 * already written is written again (an identical overwrite under its (deviceId, ts) key).
 *
 * Only while no bridge runs on the store: a running bridge keeps each device's state in memory
 * and would write the forgotten state back with its next batch.
 */
import type { Edgetable } from '../edgetable.js';
import { isAlive } from '../storage/process-liveness.js';
import { readBridgeStatus } from './bridge-status.js';
import type { DedupState } from './dedup-state.js';
import { BRIDGE_STATE_TABLE, loadDedupState, tableExists } from './state-table.js';

export class ForgetNodeError extends Error {
  override name = 'ForgetNodeError';
}

/** The pid of a bridge running on the store at `storePath` (by its status file), or undefined. */
export function runningBridge(storePath: string): number | undefined {
  const status = readBridgeStatus(storePath);
  return status?.running === true && status.pid !== process.pid && isAlive(status.pid) ? status.pid : undefined;
}

/** Removes `deviceId`'s state for readings table `table`; returns what it was, or undefined when there was none. */
export function forgetNode(db: Edgetable, storePath: string, deviceId: string, table: string, stateTable = BRIDGE_STATE_TABLE): DedupState | undefined {
  const pid = runningBridge(storePath);
  if (pid !== undefined) throw new ForgetNodeError(`a bridge (process ${pid}) is running on ${storePath}: stop it first, or it writes the state it holds back`);
  if (!tableExists(db, stateTable)) return undefined;
  const key = { table: { S: table }, deviceId: { S: deviceId } };
  const found = db.getItem({ TableName: stateTable, Key: key, ConsistentRead: true });
  if (found.Item === undefined) return undefined;
  const state = loadDedupState(db, stateTable, table, deviceId);
  db.deleteItem({ TableName: stateTable, Key: key });
  return state;
}
