/**
 * `startHub(options)`: the central side of sync (docs/sync.md). Subscribes to every device's
 * batches (with an MQTT shared subscription when `shareGroup` is set, so several hub processes
 * split the load) and to their retained schemas; creates each announced table; applies each batch
 * in one txn (apply-batch.ts) committed off the event loop (store.writeAsync: the commit and its
 * flushes run on libuv workers) and acknowledges on `edgetable/v1/<device>/ack` only once that
 * commit is durable. Messages are handled one at a time in the order received: the link hands
 * over the next only after a batch is answered (mqtt-link.ts), so per device and shard the
 * applies and acks keep the device's order, and a redelivered batch is a duplicate. A batch whose device id differs from its topic's, or that cannot be decoded, is
 * rejected: nothing is applied, nothing acknowledged, and it is reported in status().rejected. A
 * decodable batch the hub cannot apply (validation, key schema) is refused: kept in the
 * dead-letter table (replication/dead-letters.ts), acknowledged with status 'refused' so the device moves on,
 * and counted (status().refusedBatches, and in rejected). A version 1 batch is answered with a
 * version 1 rejection naming the version this hub needs (sync-batch.ts).
 *
 * Never ends the process: an error while applying (a storage error such as a full disk) is
 * counted (applyErrors), reported (lastError) and answered with status 'retry', so the device
 * sends the batch again after its ack timeout (its back-off); nothing of the batch was applied.
 * The version collector (collect-versions.ts) runs on a timer and handles its errors the same way.
 * A hub table changed by another process on the folder between the hub's resolution of it and the
 * apply txn (a split, an index, a re-created table) is not an error: the apply re-runs on the
 * reloaded catalog, schema check included (counted in catalogRetries).
 *
 * mode 'merged' (default): one hub table per table name, all devices merged with last-writer-wins.
 * mode 'per-device': one hub table per (device, table), named `<table>.<device>`.
 *
 * Shared brokers (device-access.ts, announced-schemas.ts): a batch or schema of a device that
 * `allowDevices` does not admit is not applied, not acknowledged, counted in status().refusedDevices
 * and logged once per device. A retained schema creates a table only while fresh or once its
 * device sends a batch. A device whose announced definition conflicts with the hub table's is
 * answered 'conflict' (naming the difference) for every batch of that table, and listed in
 * status().schemaConflicts, until one of the two definitions changes.
 *
 * With `port`, the hub also serves the DynamoDB API and the Streams API on its store
 * (server/start-server.ts, as `edgetable serve` does), on the same Edgetable it applies batches
 * into; `ready` resolves once it listens (status().api). With `forward`, it forwards its tables to a
 * DynamoDB-compatible endpoint (forward/start-forwarder.ts; status().forward).
 *
 * One namespace, one consuming hub (hub-presence.ts, hub-election.ts): the hub announces itself on
 * the namespace's presence topic and holds every message until it knows whether another hub
 * already consumes there; if one does (not of its share group), it unsubscribes and stands by,
 * applying nothing (status().role, standbyReason, hubs), and takes over when that hub goes only if
 * both serve one store.
 */
import { open, type Edgetable, type OpenOptions } from '../edgetable.js';
import { CborError } from '../codec/cbor-envelope.js';
import { MqttLink } from '../sync/mqtt-link.js';
import { decodeSyncBatch, encodeLegacyRejection, encodeSyncAck, SyncVersionError, type SyncAck, type SyncBatch } from '../sync/protocol/sync-batch.js';
import { DEFAULT_MAX_CLOCK_DRIFT_MS, DEFAULT_VERSION_HORIZON_MS, HLC_ZERO, type Hlc, type ReplicaTable } from '../replication/replica-types.js';
import { DEAD_LETTER_TABLE } from '../replication/dead-letters.js';
import type { TlsOptions } from '../sync/sync-options.js';
import { Topics, isValidNamespace } from '../sync/protocol/topics.js';
import { DownPublisher, type AuthorizeSubscription, type DownStatus } from './down-publisher.js';
import { createHubBounds, DEFAULT_LOG_MAX_RECORDS, type HubBoundsStatus } from './hub-bounds.js';
import { DEFAULT_DEAD_LETTER_MAX_ITEMS, DEFAULT_DEAD_LETTER_RETENTION_MS } from './dead-letter-bounds.js';
import { createTableRequest, tableSchema, type TableSchema } from '../sync/protocol/table-schema.js';
import { log } from '../log/logger.js';
import { createDeviceAccess, type AllowDevices, type PartitionKeyValue, type SubscriptionPermissions } from './device-access.js';
import { AnnouncedSchemas, DEFAULT_SCHEMA_MAX_AGE_MS, type SchemaConflict } from './announced-schemas.js';
import { MalformedBatchError, type ApplyResult } from '../replication/apply-batch.js';
import { checkConflictRules, conflictRuleOf, type ConflictRules } from '../replication/conflict-rule.js';
import type { GapReport } from '../replication/hub-records.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import type { SigV4Options } from '../server/sigv4.js';
import type { RequestLimits } from '../server/request-limits.js';
import { startForwarder, type ForwardOptions, type ForwardStatus } from './forward/start-forwarder.js';
import { HubPresenceTracker, type PresenceStatus } from './hub-presence.js';
import type { DownDuty, RoleDecision } from './hub-election.js';

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
  /** A device record clock more than this ahead of the hub's wall clock is not merged (stream/hlc.ts). */
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
  /** Device record clocks not merged because they were too far ahead (stream/hlc.ts). */
  readonly clockRefused: number;
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

const MAX_REJECTIONS_KEPT = 100;
const MAX_REFUSED_DEVICES_KEPT = 1000;

export function startHub(options: HubOptions): Hub {
  if (!options.db && !options.path) throw new Error('startHub needs a path or a db');
  const namespace = options.namespace ?? 'edgetable';
  if (!isValidNamespace(namespace)) throw new Error(`invalid namespace ${JSON.stringify(namespace)}: 1 to 8 levels of [a-zA-Z0-9_.-] separated by '/'`);
  const topics = new Topics(namespace);
  const hubId = options.hubId ?? 'hub';
  // Validated before the store opens: a bad pattern throws ValidationException and leaves nothing open.
  const access = createDeviceAccess({
    ...(options.allowDevices !== undefined ? { allowDevices: options.allowDevices } : {}),
    ...(options.subscriptions !== undefined ? { subscriptions: options.subscriptions } : {}),
  });
  const db = options.db ?? open({ path: options.path!, ...(options.durability ? { durability: options.durability } : {}) });
  const ownsDb = !options.db;
  const replica = db.replica;
  const incarnation = replica.incarnation();
  const mode = options.mode ?? 'merged';
  const conflicts = checkConflictRules(options.conflicts);
  const maxDriftMs = options.maxClockDriftMs ?? DEFAULT_MAX_CLOCK_DRIFT_MS;
  const horizonMs = options.versionHorizonMs ?? DEFAULT_VERSION_HORIZON_MS;
  const rejected: Rejection[] = [];
  const bounds = createHubBounds(db, {
    logMaxRecords: options.logMaxRecords ?? DEFAULT_LOG_MAX_RECORDS,
    retentionMs: horizonMs,
    deadLetters: { maxItems: options.deadLetterMaxItems ?? DEFAULT_DEAD_LETTER_MAX_ITEMS, retentionMs: options.deadLetterRetentionMs ?? DEFAULT_DEAD_LETTER_RETENTION_MS },
  });
  const schemas = new AnnouncedSchemas(options.schemaMaxAgeMs ?? DEFAULT_SCHEMA_MAX_AGE_MS, maxDriftMs);
  const refusedDevices = new Map<string, { deviceId: string; messages: number; firstAtMs: number; lastAtMs: number }>();
  const hubTables = new Set<string>();
  const counters = {
    batchesApplied: 0,
    recordsApplied: 0,
    recordsSuperseded: 0,
    duplicateRecords: 0,
    rejectedTotal: 0,
    refusedBatches: 0,
    deadLetteredRecords: 0,
    clockRefused: 0,
    versionConflicts: 0,
    applyErrors: 0,
    catalogRetries: 0,
    versionsCollected: 0,
    logRecordsPruned: 0,
    refusedDeviceMessages: 0,
    staleSchemas: 0,
  };
  let lastError: string | undefined;

  const hubTableName = (device: string, table: string) => (mode === 'merged' ? table : `${table}.${device}`);

  const reject = (topic: string, reason: string) => {
    const r = { topic, reason, at: Date.now() };
    counters.rejectedTotal += 1;
    rejected.push(r);
    if (rejected.length > MAX_REJECTIONS_KEPT) rejected.shift();
    options.onReject?.(r);
  };

  /** False (and counted, logged the first time) for a device the allow-list does not admit. */
  const admits = (device: string, topic: string): boolean => {
    if (access.isAllowed(device)) return true;
    const now = Date.now();
    counters.refusedDeviceMessages += 1;
    const known = refusedDevices.get(device);
    if (known) {
      known.messages += 1;
      known.lastAtMs = now;
    } else if (refusedDevices.size < MAX_REFUSED_DEVICES_KEPT) {
      refusedDevices.set(device, { deviceId: device, messages: 1, firstAtMs: now, lastAtMs: now });
      log('hub').warn({ deviceId: device, topic }, `ignoring device ${device}: not on the hub's allow-list (further messages are counted, not logged)`);
    }
    return false;
  };

  const createHubTable = (name: string, schema: TableSchema): boolean => {
    try {
      db.execute('CreateTable', { ...createTableRequest(schema), TableName: name, BillingMode: 'PAY_PER_REQUEST' });
      hubTables.add(name);
      logTables();
      return true;
    } catch (err) {
      lastError = `creating ${name}: ${(err as Error).message}`;
      return false;
    }
  };

  /** The device's definition against the hub table's; the difference when they conflict. */
  const conflictOf = (device: string, table: string, hubTable: ReplicaTable): string | undefined =>
    schemas.check(device, table, tableSchema(hubTable.def), Date.now());

  const onSchema = (device: string, table: string, payload: Buffer) => {
    if (payload.length === 0) return; // a cleared retained message
    const topic = topics.schema(device, table);
    if (!admits(device, topic)) return;
    let schema: TableSchema;
    try {
      schema = JSON.parse(payload.toString('utf8')) as TableSchema;
      if (schema.TableName !== table) throw new Error(`schema names table ${schema.TableName}`);
    } catch (err) {
      reject(topic, `malformed schema: ${(err as Error).message}`);
      return;
    }
    schemas.remember(device, table, schema);
    const name = hubTableName(device, table);
    const existing = replica.table(name);
    if (existing) {
      hubTables.add(name);
      const difference = conflictOf(device, table, existing);
      // Told at once when the announcement names its stream; otherwise at its next batch.
      if (difference !== undefined && typeof schema.incarnation === 'string' && typeof schema.TableId === 'string') {
        link.publish(topics.ack(device), encodeSyncAck({ incarnation: schema.incarnation, table, tableId: schema.TableId, shard: 0, seq: 0, status: 'conflict', message: difference, hubClock: clockNow() }));
      }
      return;
    }
    if (!schemas.isFresh(schema, Date.now())) {
      counters.staleSchemas += 1; // created when the device sends a batch of it, if it ever does
      return;
    }
    createHubTable(name, schema);
  };

  /**
   * Resolves once the batch is answered: its commit (store.writeAsync, off the event loop) is
   * durable before the ack is sent. The link hands over the next message only after that
   * (mqtt-link.ts), so each device's batches are applied and acknowledged in the order sent.
   */
  const onBatch = async (topic: string, device: string, tableName: string, shard: number, payload: Buffer): Promise<void> => {
    if (!admits(device, topic)) return; // no ack: the device keeps its records until it is admitted
    let batch: SyncBatch;
    try {
      batch = decodeSyncBatch(payload);
    } catch (err) {
      if (err instanceof SyncVersionError && err.legacy && err.legacy.deviceId === device) {
        link.publish(topics.ack(device), encodeLegacyRejection(err.legacy.table, err.legacy.shard, err.message));
        reject(topic, err.message);
        return;
      }
      reject(topic, `malformed batch: ${(err as Error).message}`);
      return;
    }
    if (batch.deviceId !== device) {
      reject(topic, `batch of device ${batch.deviceId} published on the topic of device ${device}`);
      return;
    }
    if (batch.table !== tableName || batch.shard !== shard) {
      reject(topic, `batch for ${batch.table}/${batch.shard} published on the topic of ${tableName}/${shard}`);
      return;
    }
    const ack = (fields: Pick<SyncAck, 'seq' | 'status' | 'message' | 'hubClock' | 'rejections'>) =>
      link.publish(topics.ack(device), encodeSyncAck({ incarnation: batch.incarnation, table: tableName, tableId: batch.tableId, shard, ...fields }));
    const hubName = hubTableName(device, tableName);
    const announced = schemas.get(device, tableName);
    /**
     * Resolves the hub table and applies the batch to it. Another process on the hub's folder (a
     * CLI update-table, a second hub) may change the table between this resolution and the apply
     * txn: the txn then throws CatalogChangedError having written nothing, and the whole step
     * re-runs on the reloaded catalog (ops/catalog-retry.ts), schema check included.
     */
    const resolveAndApply = async (): Promise<{ kind: 'unknown' } | { kind: 'conflict'; difference: string } | { kind: 'done'; result: ApplyResult }> => {
      // A retained schema too old to act on alone: this batch shows its device is alive.
      if (hubName !== DEAD_LETTER_TABLE && announced && !replica.table(hubName)) createHubTable(hubName, announced);
      const table = hubName === DEAD_LETTER_TABLE ? undefined : replica.table(hubName);
      if (!table) return { kind: 'unknown' };
      const difference = conflictOf(device, tableName, table);
      if (difference !== undefined) return { kind: 'conflict', difference };
      return { kind: 'done', result: await replica.applyHubBatch(table.name, batch, { maxDriftMs, conflict: conflictRuleOf(conflicts, tableName) }) };
    };
    try {
      const outcome = await replica.retrying(resolveAndApply, () => void (counters.catalogRetries += 1));
      if (outcome.kind === 'unknown') {
        // The schema has not arrived yet: the device announces it again and sends after its ack timeout.
        ack({ seq: 0, status: 'retry', message: 'table not announced yet', hubClock: clockNow() });
        return;
      }
      if (outcome.kind === 'conflict') {
        ack({ seq: 0, status: 'conflict', message: outcome.difference, hubClock: clockNow() });
        return;
      }
      const { result } = outcome;
      counters.duplicateRecords += result.duplicates;
      counters.deadLetteredRecords += result.deadLettered;
      counters.clockRefused += result.clockRefused;
      if (result.status === 'refused') {
        counters.refusedBatches += 1;
        reject(topic, `refused: ${result.reason}`);
        ack({ seq: result.appliedSeq, status: 'refused', message: result.reason ?? '', hubClock: result.hubClock });
        return;
      }
      counters.batchesApplied += 1;
      counters.recordsApplied += result.applied;
      counters.recordsSuperseded += result.superseded;
      counters.versionConflicts += result.versionConflicts;
      ack({ seq: result.appliedSeq, status: 'applied', message: '', hubClock: result.hubClock, rejections: result.rejections });
    } catch (err) {
      counters.applyErrors += 1;
      lastError = `applying ${topic}: ${(err as Error).message}`;
      ack({ seq: 0, status: 'retry', message: `the hub could not apply the batch: ${(err as Error).message}`, hubClock: clockNow() });
    }
  };

  const clockNow = (): Hlc => {
    try {
      return replica.clock();
    } catch {
      return HLC_ZERO;
    }
  };

  /** Every merged hub table keeps a change log with versions (replication/hub-log.ts); tables created through the API too. */
  const loggedTables = new Set<string>();
  const logTables = () => {
    if (mode !== 'merged' || !replica.open) return;
    for (const table of replica.tables()) {
      if (loggedTables.has(table.def.TableId)) continue;
      replica.logHubTable(table.name, { writer: hubId, incarnation });
      loggedTables.add(table.def.TableId);
    }
  };

  const prune = () => {
    if (mode !== 'merged' || !replica.open) return;
    const forwarded = (name: string) => options.forward !== undefined && name !== DEAD_LETTER_TABLE && (options.forward.tables === undefined || options.forward.tables.includes(name));
    for (const table of replica.tables()) {
      counters.logRecordsPruned += replica.pruneLog(table.name, {
        horizonMs,
        nowMs: Date.now(),
        ...(forwarded(table.name) ? { forwardCursor: (shard: number) => replica.readCursor(options.forward!.endpoint, table.name, shard) } : {}),
        maxRecords: bounds.logCap.maxRecords,
        onUnread: (records, shard) => {
          bounds.logCap.onUnread(records);
          log('hub').warn({ table: table.name, shard, records }, `the hub log of ${table.name} is over its cap: ${records} records of shard ${shard} pruned before every reader had them`);
        },
      });
    }
  };
  /** The dead letters' retention and cap, after each prune; stop() waits for a sweep under way. */
  let trimming: Promise<void> | undefined;
  const trimDeadLetters = () => {
    if (trimming !== undefined || !replica.open) return;
    trimming = bounds
      .trimDeadLetters(Date.now())
      .catch((err: unknown) => {
        counters.applyErrors += 1;
        lastError = `trimming the dead letters: ${(err as Error).message}`;
      })
      .finally(() => {
        trimming = undefined;
      });
  };

  const collectFailed = (err: unknown) => {
    counters.applyErrors += 1;
    lastError = `collecting versions: ${(err as Error).message}`;
  };
  const collect = () => {
    try {
      counters.versionsCollected += replica.collectVersions(horizonMs, Date.now());
      prune();
    } catch (err) {
      collectFailed(err);
    }
  };
  // The timer's pass commits each of its txns off the event loop; stop() ends it between txns.
  let collecting: Promise<void> | undefined;
  let collectStopped = false;
  const collectInBackground = () => {
    if (collecting !== undefined || collectStopped || !replica.open) return;
    collecting = (async () => {
      try {
        counters.versionsCollected += await replica.collectVersions(horizonMs, Date.now(), () => collectStopped);
        if (!collectStopped) prune();
      } catch (err) {
        collectFailed(err);
      }
    })().finally(() => {
      collecting = undefined;
    });
  };
  try {
    logTables();
  } catch (err) {
    lastError = `logging the hub tables: ${(err as Error).message}`;
  }
  try {
    replica.deadLetters(); // created now, so applying a batch never has to create a table
  } catch (err) {
    lastError = `creating ${DEAD_LETTER_TABLE}: ${(err as Error).message}`; // retried by the first batch
  }
  const collectEvery = options.versionCollectIntervalMs ?? 60 * 60 * 1000;
  const collectTimer = collectEvery > 0 ? setInterval(collectInBackground, collectEvery).unref() : undefined;

  const down = new DownPublisher({
    db,
    topics,
    publish: (topic, payload) => link.publish(topic, payload),
    hubId,
    incarnation,
    mergedTables: mode === 'merged',
    // The allow-list and subscription permissions (device-access.ts), then the caller's own hook.
    // (binary partition keys reach the permissions as base64 text)
    authorize: (device, table, keys) =>
      access.authorizeSubscription(device, table, keys?.map((k) => (k instanceof Uint8Array ? Buffer.from(k).toString('base64') : k))) &&
      (options.authorizeSubscription?.(device, table, keys) ?? true),
    batchRecords: options.downBatchRecords ?? 500,
    batchBytes: options.downBatchBytes ?? 256 * 1024,
    maxInFlight: options.downMaxInFlight ?? 4,
    ackTimeoutMs: options.downAckTimeoutMs ?? 5000,
    onError: (message) => {
      counters.applyErrors += 1;
      lastError = message;
    },
    refusal: () => (duty === 'refuse' && decision?.role === 'active' ? decision.downReason : undefined),
  });
  const downTimer = setInterval(() => {
    if (!replica.open || duty !== 'serve') return;
    try {
      logTables();
      down.pass();
    } catch (err) {
      counters.applyErrors += 1;
      lastError = `down: ${(err as Error).message}`;
    }
  }, options.downPollMs ?? 20);
  const pruneEvery = options.logPruneIntervalMs ?? 10_000;
  const pruneTimer =
    pruneEvery > 0
      ? setInterval(() => {
          try {
            prune();
            trimDeadLetters();
          } catch (err) {
            counters.applyErrors += 1;
            lastError = `pruning the hub log: ${(err as Error).message}`;
          }
        }, pruneEvery).unref()
      : undefined;

  /** The batch being applied (at most one: the link holds the next message until it is answered). */
  let handling: Promise<void> = Promise.resolve();
  let stopping = false;
  /** Until the first decision, messages wait (the link holds them); then only an active hub handles them. */
  let decision: RoleDecision | undefined;
  let duty: DownDuty = 'none';
  let firstDecision!: () => void;
  const decided = new Promise<void>((resolve) => (firstDecision = resolve));
  const consumeFilters = (down: DownDuty): string[] =>
    options.shareGroup
      ? [topics.schemaSubscription, topics.sharedHubSubscription(options.shareGroup), ...(down !== 'none' ? [topics.downControlSubscription] : [])]
      : [topics.schemaSubscription, topics.hubSubscription];
  const onDecision = (next: RoleDecision) => {
    decision = next;
    const nextDuty: DownDuty = next.role === 'active' ? next.down : 'none';
    // A device's down state is rebuilt from its retained subscription when this hub serves it again.
    if (nextDuty !== duty) down.forget();
    if (next.role === 'standby') link.setSubscriptions([]);
    else link.setSubscriptions(consumeFilters(nextDuty), nextDuty !== duty && nextDuty !== 'none' ? [topics.downControlSubscription] : []);
    duty = nextDuty;
    firstDecision();
  };
  const link = new MqttLink({
    ...options,
    clientId: options.clientId ?? `edgetable-hub-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    reconnectPeriodMs: options.reconnectPeriodMs ?? 250,
    subscriptions: consumeFilters(options.shareGroup ? 'serve' : 'none'),
    onState: (_online, error) => {
      if (error !== undefined) lastError = error;
    },
    onMessage: (topic, payload) => (decision === undefined && !stopping ? decided.then(() => route(topic, payload)) : route(topic, payload)),
  });
  const presence = new HubPresenceTracker({
    ...options,
    reconnectPeriodMs: options.reconnectPeriodMs ?? 250,
    topics,
    hubId,
    incarnation,
    mode,
    ...(options.presenceIntervalMs !== undefined ? { intervalMs: options.presenceIntervalMs } : {}),
    ...(options.presenceSettleMs !== undefined ? { settleMs: options.presenceSettleMs } : {}),
    onDecision,
  });
  function route(topic: string, payload: Buffer): void | Promise<void> {
      // Nothing thrown here may reach the MQTT client's event emitter: it would end the process.
      const failed = (err: unknown) => {
        counters.applyErrors += 1;
        lastError = `handling ${topic}: ${(err as Error).message}`;
      };
      try {
        if (stopping) return; // stop() waits for the message being handled, then closes the store
        if (decision?.role !== 'active') return; // a standby hub answers nothing: the active one does
        const t = topics.parse(topic);
        if (t.kind === 'schema') onSchema(t.deviceId, t.table, payload);
        else if (t.kind === 'batch') {
          const answered = onBatch(topic, t.deviceId, t.table, t.shard, payload).catch(failed);
          handling = answered;
          return answered;
        }
        else if (duty === 'none') return; // down control reached this hub through the share group: another hub serves it
        else if (t.kind === 'down-subscribe') {
          if (payload.length === 0 || !admits(t.deviceId, topic)) return; // a cleared retained subscription, or a device off the allow-list
          logTables();
          down.onSubscribe(t.deviceId, payload);
        } else if (t.kind === 'down-ack' && admits(t.deviceId, topic)) down.onAck(t.deviceId, payload);
      } catch (err) {
        failed(err);
      }
  }

  let server: RunningServer | undefined;
  const listening =
    options.port === undefined
      ? Promise.resolve(undefined)
      : startServer({ db, port: options.port, ...(options.host ? { host: options.host } : {}), ...options.apiLimits, ...(options.auth ? { auth: options.auth } : {}) }).then((s) => (server = s));
  const ready = listening.then(() => undefined);
  ready.catch(() => undefined); // a caller that never awaits ready still sees lastError
  listening.catch((err: unknown) => {
    lastError = `serving the API: ${(err as Error).message}`;
  });
  const forwarder = options.forward ? startForwarder(db, options.forward) : undefined;

  const readGapsSafely = (): GapReport[] => {
    try {
      return replica.open ? replica.gaps() : [];
    } catch {
      return [];
    }
  };

  return {
    collectVersions: () => {
      collect();
      trimDeadLetters();
      return counters.versionsCollected;
    },
    status: () => ({
      ...presence.status(),
      online: link.online && presence.online,
      ...((lastError ?? link.lastError) !== undefined ? { lastError: lastError ?? link.lastError } : {}),
      ...counters,
      incarnation,
      clock: clockNow(),
      rejected: [...rejected],
      gaps: readGapsSafely(),
      tables: [...hubTables].sort(),
      ...(server ? { api: { host: server.host, port: server.port } } : {}),
      ...(forwarder ? { forward: forwarder.status() } : {}),
      down: down.status(),
      refusedDevices: [...refusedDevices.values()].map((d) => ({ ...d })),
      bounds: bounds.status(),
      schemaConflicts: schemas.conflicts(),
    }),
    authorizeSubscription: access.authorizeSubscription,
    ready,
    stop: async () => {
      clearInterval(collectTimer);
      collectStopped = true;
      await collecting; // its txn in hand commits; the rest waits for the next start
      clearInterval(downTimer);
      clearInterval(pruneTimer);
      await trimming;
      await forwarder?.stop();
      await listening.then((s) => s?.close(), () => undefined);
      stopping = true; // messages from now on are dropped unanswered: their devices resend them
      firstDecision(); // messages held for the first decision are dropped too
      await handling; // the batch in hand is answered (durable, acked) before the link closes
      await link.close();
      await presence.stop(); // cleared only now that nothing is consumed: a standby may take over
      await down.settled(); // the down cursors saved so far are durable before the store may close
      if (ownsDb) db.close();
    },
  };
}
