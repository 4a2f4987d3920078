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
import { SERVICE_CHECK_INTERVAL_MS, open } from '../edgetable.js';
import { MqttLink } from '../sync/mqtt-link.js';
import { DEFAULT_MAX_CLOCK_DRIFT_MS, DEFAULT_VERSION_HORIZON_MS, HLC_ZERO, type Hlc } from '../replication/replica-types.js';
import { DEAD_LETTER_TABLE } from '../replication/dead-letters.js';
import { Topics, isValidNamespace } from '../sync/protocol/topics.js';
import { DownPublisher } from './down-publisher.js';
import { createHubBounds, DEFAULT_LOG_MAX_RECORDS } from './hub-bounds.js';
import { DEFAULT_DEAD_LETTER_MAX_ITEMS, DEFAULT_DEAD_LETTER_RETENTION_MS } from './dead-letter-bounds.js';
import { createDeviceAccess } from './device-access.js';
import { AnnouncedSchemas, DEFAULT_SCHEMA_MAX_AGE_MS } from './announced-schemas.js';
import { checkConflictRules } from '../replication/conflict-rule.js';
import type { GapReport } from '../replication/hub-records.js';
import { HubPresenceTracker } from './hub-presence.js';
import type { DownDuty, RoleDecision } from './hub-election.js';
import type { Hub, HubOptions } from './hub-types.js';
import { HubHealth } from './hub-health.js';
import { DeviceAdmission } from './device-admission.js';
import { HubTables } from './hub-tables.js';
import { createSchemaHandler } from './schema-handler.js';
import { createBatchHandler } from './batch-handler.js';
import { HubUpkeep } from './hub-upkeep.js';
import { startHubApi } from './hub-api.js';

export type { Hub, HubOptions, HubStatus, Rejection, RefusedDevice } from './hub-types.js';

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
    ...(options.writeGrants !== undefined ? { writeGrants: options.writeGrants } : {}),
  });
  const deferred = options.durability ?? options.db?.replica.durability;
  // A hub sends what it stores on to devices and DynamoDB: in a durability whose writes are readable before they are durable it could send one a power cut then takes back.
  if (deferred === 'interval' || deferred === 'relaxed') throw new Error(`a hub's store must make every write durable before it is read: durability '${deferred}' defers the flush (use 'sync' or 'log')`);
  const db = options.db ?? open({ path: options.path!, checkIntervalMs: SERVICE_CHECK_INTERVAL_MS, ...(options.durability ? { durability: options.durability } : {}) });
  const ownsDb = !options.db;
  const replica = db.replica;
  const incarnation = replica.incarnation();
  const mode = options.mode ?? 'merged';
  const conflicts = checkConflictRules(options.conflicts);
  const maxDriftMs = options.maxClockDriftMs ?? DEFAULT_MAX_CLOCK_DRIFT_MS;
  const horizonMs = options.versionHorizonMs ?? DEFAULT_VERSION_HORIZON_MS;
  const bounds = createHubBounds(db, {
    logMaxRecords: options.logMaxRecords ?? DEFAULT_LOG_MAX_RECORDS,
    retentionMs: horizonMs,
    deadLetters: { maxItems: options.deadLetterMaxItems ?? DEFAULT_DEAD_LETTER_MAX_ITEMS, retentionMs: options.deadLetterRetentionMs ?? DEFAULT_DEAD_LETTER_RETENTION_MS },
  });
  const schemas = new AnnouncedSchemas(options.schemaMaxAgeMs ?? DEFAULT_SCHEMA_MAX_AGE_MS, maxDriftMs);
  const health = new HubHealth(options.onReject);
  const { counters } = health;
  const admission = new DeviceAdmission(access, () => void (counters.refusedDeviceMessages += 1));
  const tables = new HubTables({ db, mode, hubId, incarnation, schemas, onCreateError: (message) => (health.lastError = message) });

  const clockNow = (): Hlc => {
    try {
      return replica.clock();
    } catch {
      return HLC_ZERO;
    }
  };
  const publish = (topic: string, payload: Uint8Array) => void link.publish(topic, payload);
  const handlerParts = { replica, topics, publish, clockNow, admission, access, schemas, tables, health };
  const onSchema = createSchemaHandler(handlerParts);
  const onBatch = createBatchHandler({ ...handlerParts, maxDriftMs, conflicts });

  try {
    tables.logAll();
  } catch (err) {
    health.lastError = `logging the hub tables: ${(err as Error).message}`;
  }
  try {
    replica.deadLetters(); // created now, so applying a batch never has to create a table
  } catch (err) {
    health.lastError = `creating ${DEAD_LETTER_TABLE}: ${(err as Error).message}`; // retried by the first batch
  }
  const upkeep = new HubUpkeep({ replica, mode, horizonMs, forward: options.forward, bounds, health });
  upkeep.startCollecting(options.versionCollectIntervalMs ?? 60 * 60 * 1000);

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
    onError: (message) => health.failed(message),
    refusal: () => (duty === 'refuse' && decision?.role === 'active' ? decision.downReason : undefined),
  });
  const downTimer = setInterval(() => {
    if (!replica.open || duty !== 'serve') return;
    try {
      tables.logAll();
      down.pass();
    } catch (err) {
      health.failed(`down: ${(err as Error).message}`);
    }
  }, options.downPollMs ?? 20);
  upkeep.startPruning(options.logPruneIntervalMs ?? 10_000);

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
      if (error !== undefined) health.lastError = error;
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
      const failed = (err: unknown) => health.failed(`handling ${topic}: ${(err as Error).message}`);
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
          if (payload.length === 0 || !admission.admits(t.deviceId, topic)) return; // a cleared retained subscription, or a device off the allow-list
          tables.logAll();
          down.onSubscribe(t.deviceId, payload);
        } else if (t.kind === 'down-ack' && admission.admits(t.deviceId, topic)) down.onAck(t.deviceId, payload);
      } catch (err) {
        failed(err);
      }
  }

  const api = startHubApi(db, options, (message) => (health.lastError = message));

  const readGapsSafely = (): GapReport[] => {
    try {
      return replica.open ? replica.gaps() : [];
    } catch {
      return [];
    }
  };

  return {
    collectVersions: () => upkeep.collectNow(),
    status: () => {
      const address = api.address();
      const forward = api.forwardStatus();
      return {
        ...presence.status(),
        online: link.online && presence.online,
        ...((health.lastError ?? link.lastError) !== undefined ? { lastError: health.lastError ?? link.lastError } : {}),
        ...counters,
        incarnation,
        clock: clockNow(),
        rejected: [...health.rejected],
        gaps: readGapsSafely(),
        tables: tables.names(),
        ...(address ? { api: address } : {}),
        ...(forward ? { forward } : {}),
        down: down.status(),
        refusedDevices: admission.refusedDevices(),
        bounds: bounds.status(),
        schemaConflicts: schemas.conflicts(),
      };
    },
    authorizeSubscription: access.authorizeSubscription,
    ready: api.ready,
    stop: async () => {
      await upkeep.stopCollecting(); // its txn in hand commits; the rest waits for the next start
      clearInterval(downTimer);
      await upkeep.stopPruning(); // a dead-letter sweep under way ends first
      await api.stop();
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
