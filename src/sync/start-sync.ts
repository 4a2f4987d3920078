/**
 * `startSync(options)`: starts a device's sync agent (sync-agent.ts) for `options.tables` and
 * returns its handle. Marks the tables as synced first (their writes are logged with new images
 * from then on, and their existing items are logged once), so this throws if a table is missing.
 */
import { SyncError } from './sync-error.js';
import { SyncAgent } from './sync-agent.js';
import { resolveSyncOptions, type SyncHandle, type SyncOptions } from './sync-options.js';
import { isValidDeviceId } from './topics.js';

export function startSync(options: SyncOptions): SyncHandle {
  if (!isValidDeviceId(options.deviceId)) throw new SyncError(`invalid device id ${JSON.stringify(options.deviceId)}: 1 to 128 of [a-zA-Z0-9_.-]`);
  if (options.tables.length === 0) throw new SyncError('startSync needs at least one table');
  const agent = new SyncAgent(options.db, resolveSyncOptions(options));
  return {
    flushed: () => agent.flushed(),
    status: () => agent.status(),
    stop: () => agent.stop(),
  };
}
