/**
 * The plain types of the Replica port (replica.ts): what sync/ and hub/ exchange with the engine.
 * No Txn, Store, Table or Database appears here: a table is its name and definition, a change is
 * its sequence number and the bytes of its change record (docs/change-record.md), a clock is an
 * HLC value. The wire formats (sync/protocol/) are built on these types, never the reverse.
 */
import type { Item } from '../model/attribute-value.js';
import type { Hlc } from '../stream/hlc.js';
import type { Version } from '../stream/item-versions.js';
import type { ShardRefusals } from '../stream/sync-refusals.js';
import type { ShardHeader } from '../stream/shard-state.js';
import type { TableDefinition } from '../table/table-definition.js';

export type { Hlc } from '../stream/hlc.js';
export type { Version } from '../stream/item-versions.js';
export type { ShardRefusals } from '../stream/sync-refusals.js';
export type { TableDefinition } from '../table/table-definition.js';
export type { ChangeRecord, GapRecord, StreamRecord } from '../stream/change-record.js';
export type { ShardHeader, SyncSettings } from '../stream/shard-state.js';
export type { AckOutcome } from '../stream/acknowledge-shard.js';
export type { TableLag } from './forward-lag.js';
export { BASE_PAGE_STRIDE, BASE_SHARD, type BasePage as BaseReadPage, type BaseReadPort, type BaseReadProgress } from './base-read-port.js';
export type { LogSize } from './hub-log-size.js';
export { DEFAULT_MAX_CLOCK_DRIFT_MS, HLC_ZERO, compareHlc } from '../stream/hlc.js';
export { DEFAULT_VERSION_HORIZON_MS } from '../stream/item-versions.js';
export { decodeStreamRecord, recordOrigin } from '../stream/change-record.js';

/**
 * A table as replication sees it: stable for one definition (the port hands out the same object
 * until the table is altered, dropped or re-created), so `===` tells a re-created table apart.
 */
export type ReplicaTable = {
  readonly name: string;
  /** The stored definition: TableId, key schema, indexes, stream settings. */
  readonly def: TableDefinition;
  readonly keyNames: readonly string[];
  readonly partitionKey: { readonly name: string; readonly type: 'S' | 'N' | 'B' };
};

/** One change-log record: its sequence number and its bytes exactly as stored (a copy the caller owns). */
export type ChangeEntry = { readonly seq: number; readonly bytes: Uint8Array };

/** A shard of a table's change log and its cursor as the outbox keeps it. */
export type ShardPosition = {
  readonly table: ReplicaTable;
  readonly shard: number;
  /** Highest sequence acknowledged, next to be written, parent shard, bytes not yet acknowledged. */
  readonly header: ShardHeader;
};

/** A shard of a table's change log for its readers (down publisher, forwarder). */
export type LogShard = {
  readonly shard: number;
  readonly parent?: number;
  /** False once a split closed it: it gets no more records. */
  readonly open: boolean;
  /** The oldest record it still holds (undefined when none: everything was pruned or none written). */
  readonly firstSeq: number | undefined;
  /** The last sequence written (0: none yet). */
  readonly lastSeq: number;
};

/** A device batch as the hub applies it (sync/protocol/sync-batch.ts SyncBatch decodes to this shape). */
export type HubBatch = {
  readonly deviceId: string;
  readonly incarnation: string;
  readonly table: string;
  readonly tableId: string;
  readonly shard: number;
  /** The parent shard (a split), as the device reports it; not used to apply. */
  readonly parent?: number | undefined;
  readonly records: readonly ChangeEntry[];
  /** Two-way sync: the device's cursor when it sent the batch (sync-batch.ts). */
  readonly after?: number;
};

/**
 * How the reason of a rejection begins when it is not a refusal under a version rule but the
 * winner sent back (replication/apply-batch.ts): under last-writer-wins, the device's write lost to a
 * version more than the hub's maxClockDriftMs ahead of it. The device had most likely received
 * that version already and refused to merge its clock (stream/hlc.ts), so its write was stamped
 * behind it; the down direction never sends that version again, and without this the device would
 * keep its losing copy. A device receiving the table ('both') puts the hub's item and version back
 * (restore-rejected.ts) and does not count it as a refused write. Part of the ack's wire format
 * (sync/protocol/sync-batch.ts).
 */
export const BEHIND_A_FUTURE_CLOCK = 'superseded by a version more than maxClockDriftMs ahead: ';

/**
 * How the reason of a write the hub refused for the device's write grants begins
 * (hub/device-access.ts): kept in the dead-letter table, acknowledged, and named in the ack's
 * rejections without the hub's item (the device may not read that partition). A device leaves its
 * local copy as it is (it is not counted as written at the hub). Part of the ack's wire format.
 */
export const UNAUTHORIZED = 'unauthorized: ';

/**
 * How the reason of a write the hub refused because its clock was more than maxClockDriftMs ahead
 * of the hub's wall clock begins: never applied by its own clock (it would win every later write
 * of its key), kept in the dead-letter table, and named in the ack's rejections with the hub's item
 * and version, which a device that receives the table down too takes as it does after a
 * version-rule refusal (an up-only table keeps its copy). Part of the ack's wire format.
 */
export const CLOCK_AHEAD = 'clock ahead: ';

/**
 * A device write the hub refused under its version rule (replication/version-check.ts), for its
 * write grants (reason UNAUTHORIZED) or its clock (reason CLOCK_AHEAD), or a losing write whose
 * winner goes back to the device (reason BEHIND_A_FUTURE_CLOCK).
 */
export type WriteRejection = {
  readonly seq: number;
  readonly keys: Item;
  /** The item the device wrote; absent for a delete. */
  readonly item?: Item;
  /** The hub's item when it refused; absent when it holds none. */
  readonly hubItem?: Item;
  readonly reason: string;
  /** The version record of the hub's item (or its tombstone); absent when the hub keeps none. */
  readonly hubVersion?: Version;
};

/** One write sent down to a device: a put of `image` or a delete, with the version it carries. */
export type DownEntry = {
  readonly remove: boolean;
  readonly keys: Item;
  readonly image?: Item;
  readonly version: Version;
};

/** Per-shard sync figures of a device's outbox. */
export type ShardSyncStatus = {
  readonly table: string;
  readonly shard: number;
  readonly parent?: number;
  /** Last sequence written to the shard. */
  readonly lastSeq: number;
  /** Highest sequence the hub acknowledged. */
  readonly ackedSeq: number;
  readonly lagRecords: number;
  /** Stored bytes of the unacknowledged records. */
  readonly lagBytes: number;
  /** Age of the oldest unacknowledged record, seconds (0 when none). */
  readonly lagSeconds: number;
  readonly oldestUnackedAgeMs: number;
  readonly inFlight: boolean;
  /** What the hub refused of this shard (kept in its dead-letter table), when it refused any. */
  readonly refused?: ShardRefusals;
};

/** The device and store a writer is: excluded from its own tombstone and base-sweep decisions. */
export type ReplicaSelf = { readonly device: string; readonly incarnation: string };

/** A device's background tombstone collection (tombstone-collector.ts). */
export type CollectorOptions = {
  /** The tables received from the hub that keep version records, as they are now. */
  readonly tables: () => readonly string[];
  readonly self: ReplicaSelf;
  readonly horizonMs: number;
  /** How far hub and device wall clocks may differ; own deletes wait this much longer. */
  readonly marginMs: number;
  /** 0: no timer (collectNow only). */
  readonly intervalMs: number;
  readonly onError: (message: string) => void;
};

export type BackgroundCollector = {
  /** Tombstones dropped since start. */
  readonly collected: number;
  /** A whole pass now, synchronously; returns the tombstones it dropped. */
  collectNow(): number;
  stop(): void;
};
