/**
 * The connection state of a running `edgetable sync`, for `edgetable sync-status` in another
 * process (a shard's lag is in the store; the broker connection lives only in the agent's
 * process). Written atomically (temp file + rename) on every change and every SNAPSHOT_MS:
 *
 *   <store path>/sync-status.json = {
 *     "format": 1, "pid": n, "running": bool, "deviceId": s, "url": s, "tables": [s],
 *     "online": bool, "since": ms,            ; when the connection last went up or down
 *     "lastError"?: s, "batchesSent": n, "recordsAcked": n, "updatedAt": ms,
 *     "conflicts"?: [{ "table": s, "conflict": s }],    ; tables whose definition conflicts with the hub's
 *     "rejectedWrites"?: n, "lastRejections"?: [RejectedWriteReport] }   ; writes the hub refused one by one
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileModeIn, setMode } from '../storage/file-modes.js';
import type { RejectedWriteReport } from '../sync/sync-options.js';
import { join } from 'node:path';

export const SYNC_STATUS_FILE = 'sync-status.json';
export const SNAPSHOT_MS = 5000;

export type SyncStatusSnapshot = {
  readonly format: 1;
  readonly pid: number;
  readonly running: boolean;
  readonly deviceId: string;
  readonly url: string;
  readonly tables: readonly string[];
  readonly online: boolean;
  readonly since: number;
  readonly lastError?: string;
  readonly batchesSent: number;
  readonly recordsAcked: number;
  /** Writes the hub refused one by one (a version rule, the write grants, a clock ahead), and the latest of them (docs/sync.md). */
  readonly rejectedWrites?: number;
  readonly lastRejections?: readonly RejectedWriteReport[];
  readonly updatedAt: number;
  readonly conflicts?: readonly { readonly table: string; readonly conflict: string }[];
};

export function writeSyncStatusFile(storePath: string, snapshot: SyncStatusSnapshot): void {
  const file = join(storePath, SYNC_STATUS_FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(snapshot)}\n`, { mode: 0o600 });
  setMode(`${file}.tmp`, fileModeIn(storePath)); // as the store's own files: readable where the store is
  renameSync(`${file}.tmp`, file);
}

/** The last snapshot, or undefined when no sync has run on this store. */
export function readSyncStatusFile(storePath: string): SyncStatusSnapshot | undefined {
  let text: string;
  try {
    text = readFileSync(join(storePath, SYNC_STATUS_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const snapshot = JSON.parse(text) as SyncStatusSnapshot;
  return snapshot.format === 1 ? snapshot : undefined;
}

