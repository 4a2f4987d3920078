/** The device agent's status() (sync-options.ts SyncStatus), assembled from its parts' figures. */
import type { Replica } from '../replication/replica.js';
import type { BackgroundCollector } from '../replication/replica-types.js';
import type { BaseSender } from './base-sender.js';
import type { DownAgent } from './down-agent.js';
import type { Direction } from './protocol/down-messages.js';
import type { SyncStatus, TableSyncStatus } from './sync-options.js';
import type { AgentHealth } from './agent-health.js';
import type { ShardFlights } from './shard-flights.js';
import { shardKey } from './shard-key.js';
import type { TableConflicts } from './table-conflicts.js';
import type { UpCounters } from './up-counters.js';
import type { WriteRejections } from './write-rejections.js';

export type SyncStatusParts = {
  readonly deviceId: string;
  readonly incarnation: string;
  readonly tables: readonly string[];
  readonly replica: Pick<Replica, 'syncStatus'>;
  readonly link: { readonly online: boolean; readonly lastError: string | undefined };
  readonly health: AgentHealth;
  readonly counters: UpCounters;
  readonly rejections: WriteRejections;
  readonly flights: ShardFlights;
  readonly conflicts: TableConflicts;
  readonly base: BaseSender;
  readonly down: DownAgent | undefined;
  readonly tombstones: BackgroundCollector | undefined;
  readonly direction: (table: string) => Direction;
};

export function assembleSyncStatus(p: SyncStatusParts): SyncStatus {
  const now = Date.now();
  const { counters, base } = p;
  const shards = p.replica.syncStatus(p.tables, now, (s) => p.flights.has(shardKey(s.table.name, s.shard)));
  const lastError = p.health.lastError ?? p.link.lastError;
  return {
    deviceId: p.deviceId,
    online: p.link.online,
    ...(lastError !== undefined ? { lastError } : {}),
    batchesSent: counters.batchesSent + base.batchesSent,
    recordsAcked: counters.recordsAcked + base.recordsAcked,
    wireBytesSent: counters.wireBytesSent + base.wireBytesSent,
    rejectedAcks: counters.rejectedAcks,
    refusedBatches: counters.refusedBatches,
    refusedRecords: counters.refusedRecords + base.refusedRecords,
    staleAcks: counters.staleAcks,
    clockRefused: counters.clockRefused + (p.down?.clockRefused ?? 0),
    clockAhead: counters.clockAhead,
    storageErrors: p.health.storageErrors,
    tombstonesCollected: p.tombstones?.collected ?? 0,
    rejectedWrites: p.rejections.rejectedWrites,
    lastRejections: p.rejections.lastRejections(),
    incarnation: p.incarnation,
    shards,
    ...(p.down ? { down: p.down.status() } : {}),
    tables: p.tables.map((table): TableSyncStatus => {
      const c = p.conflicts.get(table);
      const tableBase = p.direction(table) === 'down' ? undefined : base.status(table, now);
      return {
        table,
        state: tableBase && !tableBase.done ? 'base' : 'log',
        ...(tableBase && !tableBase.done ? { base: tableBase } : {}),
        ...(c ? { conflict: c.message, conflictSinceMs: c.sinceMs } : {}),
      };
    }),
  };
}
