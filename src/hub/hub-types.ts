/**
 * The hub's public shapes: its options, its status and its handle (start-hub.ts re-exports them).
 */
import type { Edgetable, OpenOptions } from '../edgetable.js';
import type { Hlc } from '../replication/replica-types.js';
import type { TlsOptions } from '../sync/sync-options.js';
import type { AuthorizeSubscription, DownStatus } from './down-publisher.js';
import type { HubBoundsStatus } from './hub-bounds.js';
import type { AllowDevices, PartitionKeyValue, SubscriptionPermissions, WriteGrants } from './device-access.js';
import type { SchemaConflict } from './announced-schemas.js';
import type { ConflictRules } from '../replication/conflict-rule.js';
import type { GapReport } from '../replication/hub-records.js';
import type { SigV4Options } from '../server/sigv4.js';
import type { RequestLimits } from '../server/request-limits.js';
import type { ForwardOptions, ForwardStatus } from './forward/start-forwarder.js';
import type { PresenceStatus } from './hub-presence.js';

type Durability = NonNullable<OpenOptions['durability']>;

export type HubOptions = TlsOptions & {
  /** A store folder the hub opens (and closes on stop), or an open database. */
  readonly path?: string;
  /** With `path`: the store's durability (storage/store-options.ts); default 'sync'. */
  readonly durability?: Durability;
  readonly db?: Edgetable;
  readonly url: string;
  /** Shared-subscription group; omit for a plain subscription (brokers without $share, e.g. aedes). */
  readonly shareGroup?: string;
  readonly mode?: 'merged' | 'per-device';
  readonly clientId?: string;
  readonly username?: string;
  readonly password?: string;
  readonly reconnectPeriodMs?: number;
  /**
   * A device record stamped more than this ahead of the hub's wall clock is refused (dead-lettered,
   * told to the device), never applied by its own clock; nor is its clock merged (stream/hlc.ts). Default 1 hour.
   */
  readonly maxClockDriftMs?: number;
  /** Version records older than this are collected (collect-versions.ts). Default 30 days. */
  readonly versionHorizonMs?: number;
  /** How often the version collector runs, ms. Default 1 hour; 0 disables it. */
  readonly versionCollectIntervalMs?: number;
  /** Called for every rejected batch (also kept in status().rejected). */
  readonly onReject?: (rejection: Rejection) => void;
  /** Serve the DynamoDB and Streams APIs on the hub's store on this port (0 picks a free one). */
  readonly port?: number;
  /** Address the API listens on. Default 127.0.0.1. */
  readonly host?: string;
  /** Verify the API's SigV4 signatures against these keys (server/sigv4.ts). Default: none verified. */
  readonly auth?: SigV4Options;
  /** The API's connection, body and timeout limits (server/request-limits.ts). */
  readonly apiLimits?: RequestLimits;
  /** Forward the hub's tables to a DynamoDB-compatible endpoint. */
  readonly forward?: ForwardOptions;
  /** Topic prefix shared with the devices (topics.ts). Default 'edgetable'. */
  readonly namespace?: string;
  /** The writer id of writes made at the hub through its API (their versions' device id). Default 'hub'. */
  readonly hubId?: string;
  /**
   * Down sync: whether `deviceId` may receive `table` (the listed partition keys, or the whole
   * table when undefined). Default: every subscription is allowed.
   */
  readonly authorizeSubscription?: AuthorizeSubscription;
  /** Down sync: records (and bytes) per down message, unacknowledged messages per device, ack timeout. */
  readonly downBatchRecords?: number;
  readonly downBatchBytes?: number;
  readonly downMaxInFlight?: number;
  readonly downAckTimeoutMs?: number;
  /** How often the down publisher looks for new records. Default 20 ms. */
  readonly downPollMs?: number;
  /** How often the hub log is pruned of records every reader is done with (replication/hub-log.ts). Default 10 s; 0 disables. */
  readonly logPruneIntervalMs?: number;
  /** The hub log's size cap per table, in records (replication/hub-log.ts). Default 1,000,000. */
  readonly logMaxRecords?: number;
  /** The dead letters' count cap (oldest dropped first) and retention. Defaults 100,000 and 30 days. */
  readonly deadLetterMaxItems?: number;
  readonly deadLetterRetentionMs?: number;
  /**
   * Conflict rule per table (replication/conflict-rule.ts): `{ WorkOrders: { strategy: 'version',
   * attribute: 'version' } }` refuses stale device writes; tables not named are last-writer-wins.
   */
  readonly conflicts?: ConflictRules;
  /** Devices this hub accepts: patterns (`*` = any run of characters) or a predicate. Default: all. */
  readonly allowDevices?: AllowDevices;
  /** Per device pattern, per table, the partition key values a device may subscribe to (device-access.ts). */
  readonly subscriptions?: SubscriptionPermissions;
  /**
   * Per device pattern, per table, the partition key values a device may write (device-access.ts):
   * records outside are refused and dead-lettered, tables outside are neither created nor written.
   * Default: `subscriptions`; without either, every admitted device writes everything.
   */
  readonly writeGrants?: WriteGrants;
  /** A retained schema older than this creates no table until its device sends a batch. Default 1 day. */
  readonly schemaMaxAgeMs?: number;
  /** How often the hub republishes its presence record; a record unheard for 3 periods is gone. Default 10 s. */
  readonly presenceIntervalMs?: number;
  /** How long a starting hub waits for the records of hubs starting with it before it consumes. Default 300 ms. */
  readonly presenceSettleMs?: number;
};

/** A device the allow-list refused: its batches and schemas were ignored. */
export type RefusedDevice = { readonly deviceId: string; readonly messages: number; readonly firstAtMs: number; readonly lastAtMs: number };

export type Rejection = { readonly topic: string; readonly reason: string; readonly at: number };

export type HubStatus = PresenceStatus & {
  readonly online: boolean;
  readonly lastError?: string;
  readonly batchesApplied: number;
  readonly recordsApplied: number;
  readonly recordsSuperseded: number;
  readonly duplicateRecords: number;
  /** Batches refused (acknowledged as 'refused') and their records kept in the dead-letter table. */
  readonly refusedBatches: number;
  readonly deadLetteredRecords: number;
  /** Device records refused (dead-lettered, not applied, clocks not merged) because they were stamped more than maxClockDriftMs ahead. */
  readonly clockRefused: number;
  /** Device records refused for the device's write grants (dead-lettered, told to the device), whole batches of ungranted tables included. */
  readonly unauthorizedRecords: number;
  /** Schema announcements of tables the device may not write: no table created. */
  readonly unauthorizedSchemas: number;
  /** Device writes refused by a table's version rule (told to the device in its ack). */
  readonly versionConflicts: number;
  /** Errors while applying a batch (answered 'retry') or collecting versions; never fatal. */
  readonly applyErrors: number;
  /** Batch applies re-run because another process changed the hub table's definition meanwhile. */
  readonly catalogRetries: number;
  readonly versionsCollected: number;
  /** The hub store's incarnation and clock. */
  readonly incarnation: string;
  readonly clock: Hlc;
  /** The most recent rejections (at most 100) and their total. */
  readonly rejected: readonly Rejection[];
  readonly rejectedTotal: number;
  /** Every gap any device reported (persisted). */
  readonly gaps: readonly GapReport[];
  readonly tables: readonly string[];
  /** Where the DynamoDB API listens, once it does (option `port`). */
  readonly api?: { readonly host: string; readonly port: number };
  /** The forwarder's counters (option `forward`). */
  readonly forward?: ForwardStatus;
  /** The down direction: messages, records, acks, base reads, and each device's subscriptions. */
  readonly down?: DownStatus;
  /** Hub change-log records pruned because every reader was done with them (or older than the horizon). */
  readonly logRecordsPruned?: number;
  /** The hub log's and the dead letters' bounds, sizes, fill ratios and what they removed (hub-bounds.ts). */
  readonly bounds?: HubBoundsStatus;
  /** Devices not on the allow-list that published (at most 1000 listed), and their messages in all. */
  readonly refusedDevices: readonly RefusedDevice[];
  readonly refusedDeviceMessages: number;
  /** Retained schemas too old to create a table from (waiting for their device's first batch). */
  readonly staleSchemas: number;
  /** Devices whose table definition conflicts with the hub's (answered 'conflict'). */
  readonly schemaConflicts: readonly SchemaConflict[];
};

export type Hub = {
  status(): HubStatus;
  /** Runs the version collector and the log pruner now (they also run on timers); returns the total versions collected. */
  collectVersions(): number;
  /** Whether a device may receive `partitionKeys` of `table` (omitted: the whole table): allowDevices and subscriptions. */
  authorizeSubscription(deviceId: string, table: string, partitionKeys?: readonly PartitionKeyValue[]): boolean;
  /** Resolves once the API listens (at once without `port`); rejects if it cannot listen. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
};
