/**
 * Options, handle and status of a device's sync agent (start-sync.ts). Defaults are in
 * resolveSyncOptions; docs/sync.md explains each.
 */
import type { Edgetable } from '../edgetable.js';
import type { Compression } from './protocol/sync-batch.js';
import type { Direction, PartitionKeyValue } from './protocol/down-messages.js';
import type { DownTableStatus } from './down-agent.js';
import { DEFAULT_MAX_CLOCK_DRIFT_MS, DEFAULT_VERSION_HORIZON_MS, type ShardSyncStatus } from '../replication/replica-types.js';
import type { WireItem } from '../model/attribute-value.js';
import { checkConflictRules, type ConflictRule, type ConflictRules } from '../replication/conflict-rule.js';

export type TlsOptions = {
  /** PEM: CA certificate(s) that signed the broker's certificate. */
  readonly ca?: string | Buffer;
  /** PEM: this device's client certificate and key, for brokers that require client certs. */
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  readonly rejectUnauthorized?: boolean;
};

/**
 * A table to sync: a plain name is `{ name, direction: 'up' }` (the device's changes go to the hub).
 * 'down' receives the hub's changes of the table (of the listed partition keys, or all of it);
 * 'both' does both. A device that subscribes down to a table it does not have creates it from the
 * hub's definition, indexes included.
 */
export type TableSyncSpec = {
  readonly name: string;
  readonly direction?: Direction;
  /** Partition key values received (down/both); omitted: the whole table. */
  readonly partitionKeys?: readonly PartitionKeyValue[];
  /** The table's conflict rule, as the hub has it (the same as its entry in `conflicts`). */
  readonly conflict?: ConflictRule;
};

export type SyncOptions = TlsOptions & {
  readonly db: Edgetable;
  /** mqtt://host:port or mqtts://host:port */
  readonly url: string;
  readonly deviceId: string;
  readonly tables: readonly (string | TableSyncSpec)[];
  /** Topic prefix shared with the hub (topics.ts). Default 'edgetable'. */
  readonly namespace?: string;
  readonly username?: string;
  readonly password?: string;
  /** Defaults to `edgetable-sync-<deviceId>`. */
  readonly clientId?: string;
  readonly batchMaxRecords?: number;
  readonly batchMaxBytes?: number;
  /** A shard's records wait at most this long for a fuller batch. */
  readonly batchMaxDelayMs?: number;
  readonly compression?: Compression;
  /** Unacknowledged bytes allowed per shard; 0 = unbounded. */
  readonly outboxBudgetBytes?: number;
  readonly whenFull?: 'reject' | 'drop-oldest';
  /** Acknowledged records are kept this long for local stream readers; 0 = pruned on ack. */
  readonly retentionMs?: number;
  /** How often the log is polled for new records (writes of any process on the store). */
  readonly pollIntervalMs?: number;
  /** A batch not acknowledged within this time is sent again. */
  readonly ackTimeoutMs?: number;
  readonly reconnectPeriodMs?: number;
  /** A hub clock more than this far ahead of the device's wall clock is not merged (stream/hlc.ts). */
  readonly maxClockDriftMs?: number;
  /**
   * The conflict rule of each table, as the hub has it (replication/conflict-rule.ts): a 'version' rule
   * makes the table's change log keep each write's base item, which the hub checks.
   */
  readonly conflicts?: ConflictRules;
  /** A table the hub reported in conflict is tried again (schema announced, one batch) this often. */
  readonly conflictRetryMs?: number;
  /**
   * Tombstones of received tables (version records of deleted items) older than this are collected
   * (collect-tombstones.ts); keep it at least the hub's versionHorizonMs. Default 30 days, as the hub's.
   */
  readonly versionHorizonMs?: number;
  /** How often tombstones are collected, in the background. Default 1 hour; 0: only by collectTombstones(). */
  readonly tombstoneCollectIntervalMs?: number;
};

export type ResolvedSyncOptions = Required<Omit<SyncOptions, keyof TlsOptions | 'username' | 'password' | 'clientId' | 'tables'>> &
  Pick<SyncOptions, keyof TlsOptions | 'username' | 'password'> & {
    readonly clientId: string;
    /** Every synced table's name, whatever its direction. */
    readonly tables: readonly string[];
    readonly specs: ReadonlyMap<string, { readonly direction: Direction; readonly partitionKeys?: readonly PartitionKeyValue[] }>;
  };

export function resolveSyncOptions(o: SyncOptions): ResolvedSyncOptions {
  const specs = new Map<string, { direction: Direction; partitionKeys?: readonly PartitionKeyValue[] }>();
  const conflicts: Record<string, ConflictRule> = { ...checkConflictRules(o.conflicts) };
  for (const t of o.tables) {
    const spec: TableSyncSpec = typeof t === 'string' ? { name: t } : t;
    specs.set(spec.name, { direction: spec.direction ?? 'up', ...(spec.partitionKeys ? { partitionKeys: spec.partitionKeys } : {}) });
    if (spec.conflict !== undefined) conflicts[spec.name] = spec.conflict;
  }
  return {
    ...o,
    tables: [...specs.keys()],
    specs,
    namespace: o.namespace ?? 'edgetable',
    clientId: o.clientId ?? `edgetable-sync-${o.deviceId}`,
    batchMaxRecords: o.batchMaxRecords ?? 1000,
    batchMaxBytes: o.batchMaxBytes ?? 256 * 1024,
    batchMaxDelayMs: o.batchMaxDelayMs ?? 20,
    compression: o.compression ?? 'none',
    outboxBudgetBytes: o.outboxBudgetBytes ?? 0,
    whenFull: o.whenFull ?? 'reject',
    retentionMs: o.retentionMs ?? 0,
    pollIntervalMs: o.pollIntervalMs ?? 20,
    ackTimeoutMs: o.ackTimeoutMs ?? 5000,
    reconnectPeriodMs: o.reconnectPeriodMs ?? 250,
    maxClockDriftMs: o.maxClockDriftMs ?? DEFAULT_MAX_CLOCK_DRIFT_MS,
    conflicts,
    conflictRetryMs: o.conflictRetryMs ?? 60_000,
    versionHorizonMs: o.versionHorizonMs ?? DEFAULT_VERSION_HORIZON_MS,
    tombstoneCollectIntervalMs: o.tombstoneCollectIntervalMs ?? 60 * 60 * 1000,
  };
}

export type { ShardSyncStatus };

/**
 * A synced table; `conflict` says how its definition differs from the hub's, while it does.
 * `state` is 'base' while the items the table held when sync was first enabled are being sent
 * (a base read, docs/sync.md), with its figures in `base`; then 'log' (its change log only).
 */
export type TableSyncStatus = {
  readonly table: string;
  readonly state: 'base' | 'log';
  readonly base?: TableBaseStatus;
  readonly conflict?: string;
  readonly conflictSinceMs?: number;
};

/** A first-sync base read's figures, in items. */
export type TableBaseStatus = {
  /** Items the table held when sync was enabled. */
  readonly total: number;
  /** Items sent: acknowledged plus the page in flight. */
  readonly sent: number;
  /** Items the hub acknowledged (durable: a restart resumes after them). */
  readonly acked: number;
  /** Items acknowledged per second since this agent started. */
  readonly itemsPerSecond: number;
  readonly startedMs: number;
  readonly done: boolean;
};

export type SyncStatus = {
  readonly deviceId: string;
  readonly online: boolean;
  readonly lastError?: string;
  readonly batchesSent: number;
  readonly recordsAcked: number;
  readonly wireBytesSent: number;
  /** Acks with status 'retry' (the hub applied nothing; the batch is sent again). */
  readonly rejectedAcks: number;
  /** Batches the hub refused and their records: the cursor moved past them (docs/sync.md). */
  readonly refusedBatches: number;
  readonly refusedRecords: number;
  /** Acks for another incarnation or TableId (an old stream), ignored. */
  readonly staleAcks: number;
  /** Hub clocks not merged because they were more than maxClockDriftMs ahead. */
  readonly clockRefused: number;
  /** Acks whose hub clock was more than maxClockDriftMs behind this store's clock. */
  readonly clockAhead: number;
  /** Errors of polls and acks (e.g. a full disk): counted, reported, retried with back-off. */
  readonly storageErrors: number;
  /** Tombstones of received tables collected after the version horizon (collect-tombstones.ts). */
  readonly tombstonesCollected: number;
  /**
   * Writes of this device the hub refused one by one: under a version rule (docs/sync.md,
   * "Optimistic concurrency"), outside its write grants (reason `unauthorized: ...`) or stamped more
   * than the hub's maxClockDriftMs ahead (reason `clock ahead: ...`) (docs/security.md).
   */
  readonly rejectedWrites: number;
  /** The most recent of them (at most 20), oldest first. */
  readonly lastRejections: readonly RejectedWriteReport[];
  /** This store's incarnation (stream/store-identity.ts). */
  readonly incarnation: string;
  readonly shards: readonly ShardSyncStatus[];
  /** Tables received from the hub ('down' or 'both'): state, records applied and superseded, base reads. */
  readonly down?: readonly DownTableStatus[];
  /** Per synced table: a definition conflict with the hub, when there is one. */
  readonly tables: readonly TableSyncStatus[];
};

/** One write the hub refused, as sync.status() reports it. */
export type RejectedWriteReport = {
  readonly table: string;
  readonly keys: WireItem;
  /** The item this device wrote; absent for a delete. */
  readonly item?: WireItem;
  /** The hub's item when it refused; absent when it holds none, and always for an `unauthorized: ` refusal. */
  readonly hubItem?: WireItem;
  readonly reason: string;
  /** The local copy was replaced by the hub's item (false: it had changed since, or the write was refused as unauthorized). */
  readonly restored: boolean;
  readonly atMs: number;
};

export type SyncHandle = {
  /**
   * Resolves when every record written before the call is acknowledged by the hub, and each of
   * those acks is fully handled: its counters in status(), refused writes reported and restored.
   */
  flushed(): Promise<void>;
  /**
   * Resolves once the message the agent is handling (an ack, a down message) is committed,
   * counted in status() and told to db.observe, and any cursor move in flight is committed. Those
   * commits run off the event loop (store.writeAsync): a read of the store can see a received item
   * before its observe event and counters; await settled() after seeing it to have both.
   */
  settled(): Promise<void>;
  status(): SyncStatus;
  /**
   * Resolves once every table received from the hub ('down' or 'both') exists on the device and
   * its base read, if the hub started one, is done (at once when no table is received).
   */
  caughtUp(): Promise<void>;
  /**
   * Collects the tombstones of received tables older than versionHorizonMs now (it also runs every
   * tombstoneCollectIntervalMs); returns how many.
   */
  collectTombstones(): number;
  /** Stops publishing and disconnects; the cursors stay persisted for the next start. */
  stop(): Promise<void>;
};
