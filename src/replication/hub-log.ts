/**
 * The hub tables' change logs, which every reader of the hub shares: the down publisher
 * (down-publisher.ts, one durable cursor per device and table), the forwarder (forward/, one per
 * endpoint) and the Streams API.
 *
 * enableHubLog: every merged hub table is logged with version records (stream/shard-state.ts
 * SyncSettings.versions), so a write made at the hub through the API has a version (its HLC, the
 * hub id, the hub's incarnation) that last-writer-wins compares on the hub and on devices alike,
 * and a device write applied here keeps its origin in its record. The first time, the items the
 * table already holds are logged once (as the forwarder needs) unless the table already has a
 * change log (a Streams table: its readers have them).
 *
 * pruneHubLog: deletes the records every reader is done with: per shard, up to the lowest down
 * cursor of the table's devices (a base read in progress counts from where it started), and in any
 * case the records older than the version horizon, whose tombstones may be collected: a device
 * whose cursor is below what the log still holds re-reads its subscriptions whole. Never past a
 * forwarder's cursor, and never in a table that has (or had) a DynamoDB stream, whose retention is
 * the Streams API's (streams-api/trim-streams.ts). Txns of at most 1,000 records.
 *
 * The size cap (`maxRecords`, per table): when a table's log holds more, its oldest records go
 * whoever still needs them, each shard keeping its share of the cap. Records a reader had not read
 * yet (below a down cursor or the forwarder's) are reported through `onUnread`, never dropped
 * silently: a device behind them re-reads its subscriptions whole (as past the horizon), the
 * forwarder counts them as missed (start-forwarder.ts). The hub's status shows the fill ratio
 * before it comes to that (hub-bounds.ts).
 */
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { acknowledgeShard } from '../stream/acknowledge-shard.js';
import { decodeStreamRecord } from '../stream/change-record.js';
import { enableSync } from '../stream/enable-sync.js';
import { listShardIds, readShardHeader, readSyncSettings, writeSyncSettings, type SyncSettings } from '../stream/shard-state.js';
import { readShardRaw } from '../stream/stream-reader.js';
import type { Table } from '../table/table.js';
import { listDownStates } from './down-state.js';

/** A log kept for readers at the hub: no outbox budget, records deleted by pruneHubLog. */
export const HUB_LOG_SETTINGS: SyncSettings = { outboxBudgetBytes: 0, whenFull: 'reject', retentionMs: 0 };
const PRUNE_STEP = 1000;

export function enableHubLog(store: Store, table: Table, versions: NonNullable<SyncSettings['versions']>): void {
  const before = store.read((txn) => ({ settings: readSyncSettings(txn, table.meta), logged: listShardIds(txn, table.meta).length > 0 }));
  const current = before.settings?.versions;
  if (current && current.writer === versions.writer && current.incarnation === versions.incarnation) return;
  if (before.settings === undefined && !before.logged) {
    enableSync(store, table, { ...HUB_LOG_SETTINGS, versions });
    return;
  }
  store.write((txn) => writeSyncSettings(txn, table.meta, { ...(readSyncSettings(txn, table.meta) ?? HUB_LOG_SETTINGS), versions }));
}

export type PruneOptions = {
  readonly syncDb: Database;
  readonly horizonMs: number;
  readonly nowMs: number;
  /** The forwarder's cursor of a shard, when the table is forwarded. */
  readonly forwardCursor?: (shard: number) => number;
  /** Records the table's log may hold after the prune (the size cap); default unbounded. */
  readonly maxRecords?: number;
  /** Told how many records of a shard the cap dropped before some reader had them. */
  readonly onUnread?: (records: number, shard: number) => void;
};

/** Returns the number of records deleted. */
export function pruneHubLog(store: Store, table: Table, o: PruneOptions): number {
  if (table.def.LatestStreamLabel !== undefined) return 0;
  const { shards, states } = store.read((txn) => ({
    shards: listShardIds(txn, table.meta).map((id) => ({ id, header: readShardHeader(txn, table.meta, id)! })),
    states: listDownStates(txn, o.syncDb, table.name),
  }));
  const held = shards.reduce((n, { header }) => n + Math.max(0, header.nextSeq - 1 - header.ackedSeq), 0);
  const overCap = o.maxRecords !== undefined && held > o.maxRecords;
  let deleted = 0;
  for (const { id, header } of shards) {
    const last = header.nextSeq - 1;
    if (header.ackedSeq >= last) continue;
    let bound = last;
    for (const s of states) {
      const needs = s.phase === 'base' ? (s.base?.start[id] ?? 0) : (s.cursors[id] ?? 0);
      bound = Math.min(bound, needs);
    }
    bound = Math.max(bound, lastSeqOlderThan(store, table, id, header.ackedSeq, o.nowMs - o.horizonMs));
    if (o.forwardCursor) bound = Math.min(bound, o.forwardCursor(id));
    if (overCap) {
      // Each shard keeps its share of the cap, newest records first.
      const keep = Math.floor((o.maxRecords! * (last - header.ackedSeq)) / held);
      const capBound = last - keep;
      if (capBound > bound) {
        o.onUnread?.(capBound - Math.max(bound, header.ackedSeq), id);
        bound = capBound;
      }
    }
    for (let acked = header.ackedSeq; acked < bound; ) {
      const upTo = Math.min(bound, acked + PRUNE_STEP);
      deleted += acknowledgeShard(store, table, id, upTo, 0, o.nowMs).records;
      acked = upTo;
    }
  }
  return deleted;
}

/** The last sequence after `from` whose record is older than `cutoffMs` (records are in time order). */
function lastSeqOlderThan(store: Store, table: Table, shard: number, from: number, cutoffMs: number): number {
  let last = from;
  for (;;) {
    const page = readShardRaw(store, table.name, shard, last + 1, 500);
    if (page.length === 0) return last;
    for (const { seq, bytes } of page) {
      if (decodeStreamRecord(bytes).timeMs >= cutoffMs) return last;
      last = seq;
    }
  }
}
