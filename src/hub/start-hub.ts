/**
 * `startHub(options)`: the central side of sync (docs/sync.md). Subscribes to every device's
 * batches (with an MQTT shared subscription when `shareGroup` is set, so several hub processes
 * split the load) and to their retained schemas; creates each announced table; applies each batch
 * in one txn (apply-batch.ts) and acknowledges on `edgetable/v1/<device>/ack` only after the
 * commit. A batch whose device id differs from its topic's, or that is malformed, is rejected:
 * nothing is applied, nothing acknowledged, and it is reported in status().rejected.
 *
 * mode 'merged' (default): one hub table per table name, all devices merged with last-writer-wins.
 * mode 'per-device': one hub table per (device, table), named `<table>.<device>`.
 */
import { open, type Edgetable } from '../edgetable.js';
import { SYNC_DB } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import { CborError } from '../codec/cbor-envelope.js';
import { MqttLink } from '../sync/mqtt-link.js';
import { decodeSyncBatch, encodeSyncAck, type SyncBatch } from '../sync/sync-batch.js';
import type { TlsOptions } from '../sync/sync-options.js';
import type { TableSchema } from '../sync/table-schema.js';
import { SCHEMA_SUBSCRIPTION, ackTopic, hubSubscription, parseTopic, TOPIC_ROOT } from '../sync/topics.js';
import { MalformedBatchError, applyBatch } from './apply-batch.js';
import { readGaps, type GapReport } from './hub-records.js';

export type HubOptions = TlsOptions & {
  /** A store folder the hub opens (and closes on stop), or an open database. */
  readonly path?: string;
  readonly db?: Edgetable;
  readonly url: string;
  /** Shared-subscription group; omit for a plain subscription (brokers without $share, e.g. aedes). */
  readonly shareGroup?: string;
  readonly mode?: 'merged' | 'per-device';
  readonly clientId?: string;
  readonly username?: string;
  readonly password?: string;
  readonly reconnectPeriodMs?: number;
  /** Called for every rejected batch (also kept in status().rejected). */
  readonly onReject?: (rejection: Rejection) => void;
};

export type Rejection = { readonly topic: string; readonly reason: string; readonly at: number };

export type HubStatus = {
  readonly online: boolean;
  readonly lastError?: string;
  readonly batchesApplied: number;
  readonly recordsApplied: number;
  readonly recordsSuperseded: number;
  readonly duplicateRecords: number;
  /** The most recent rejections (at most 100) and their total. */
  readonly rejected: readonly Rejection[];
  readonly rejectedTotal: number;
  /** Every gap any device reported (persisted). */
  readonly gaps: readonly GapReport[];
  readonly tables: readonly string[];
};

export type Hub = { status(): HubStatus; stop(): Promise<void> };

const MAX_REJECTIONS_KEPT = 100;

export function startHub(options: HubOptions): Hub {
  if (!options.db && !options.path) throw new Error('startHub needs a path or a db');
  const db = options.db ?? open({ path: options.path! });
  const ownsDb = !options.db;
  const syncDb: Database = db.store.database(SYNC_DB);
  const mode = options.mode ?? 'merged';
  const rejected: Rejection[] = [];
  const hubTables = new Set<string>();
  const counters = { batchesApplied: 0, recordsApplied: 0, recordsSuperseded: 0, duplicateRecords: 0, rejectedTotal: 0 };
  let lastError: string | undefined;
  /** Acks waiting for the flush of their batch, in order (see onBatch). */
  let acks: Promise<void> = Promise.resolve();

  const hubTableName = (device: string, table: string) => (mode === 'merged' ? table : `${table}.${device}`);

  const reject = (topic: string, reason: string) => {
    const r = { topic, reason, at: Date.now() };
    counters.rejectedTotal += 1;
    rejected.push(r);
    if (rejected.length > MAX_REJECTIONS_KEPT) rejected.shift();
    options.onReject?.(r);
  };

  const onSchema = (device: string, table: string, payload: Buffer) => {
    if (payload.length === 0) return; // a cleared retained message
    let schema: TableSchema;
    try {
      schema = JSON.parse(payload.toString('utf8')) as TableSchema;
      if (schema.TableName !== table) throw new Error(`schema names table ${schema.TableName}`);
    } catch (err) {
      reject(`${TOPIC_ROOT}/${device}/${table}/schema`, `malformed schema: ${(err as Error).message}`);
      return;
    }
    const name = hubTableName(device, table);
    const existing = db.context.catalog.find(name);
    if (existing) {
      if (JSON.stringify(existing.def.KeySchema) !== JSON.stringify(schema.KeySchema)) {
        lastError = `device ${device} announced table ${table} with a key schema that differs from the hub's ${name}`;
      }
      hubTables.add(name);
      return;
    }
    try {
      const { version: _v, ...request } = schema;
      db.createTable({ ...request, TableName: name, BillingMode: 'PAY_PER_REQUEST' });
      hubTables.add(name);
    } catch (err) {
      lastError = `creating ${name}: ${(err as Error).message}`;
    }
  };

  const onBatch = (topic: string, device: string, tableName: string, shard: number, payload: Buffer) => {
    let batch: SyncBatch;
    try {
      batch = decodeSyncBatch(payload);
    } catch (err) {
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
    const table = db.context.catalog.find(hubTableName(device, tableName));
    if (!table) {
      // The schema has not arrived yet: no ack, the device sends again after its ack timeout.
      link.publish(ackTopic(device), encodeSyncAck({ table: tableName, shard, seq: 0, status: 'rejected', message: 'table not announced yet' }));
      return;
    }
    try {
      // The promise path's flushing (storage/store.ts deferFlush): the meta page is flushed off
      // the event loop, and the ack is sent only once that flush returned, in arrival order.
      const result = db.store.deferFlush(() => applyBatch(db.store, syncDb, table, batch));
      counters.batchesApplied += 1;
      counters.recordsApplied += result.applied;
      counters.recordsSuperseded += result.superseded;
      counters.duplicateRecords += result.duplicates;
      const ack = encodeSyncAck({ table: tableName, shard, seq: result.appliedSeq, status: 'applied', message: '' });
      const flushed = db.store.hasUnflushedCommits ? db.store.sync() : Promise.resolve();
      acks = acks.then(
        () => flushed.then(() => void link.publish(ackTopic(device), ack)),
      ).catch((err: unknown) => {
        lastError = `flushing ${topic}: ${(err as Error).message}`; // no ack: the device sends again
      });
    } catch (err) {
      if (err instanceof MalformedBatchError || err instanceof CborError) reject(topic, `malformed batch: ${err.message}`);
      else lastError = `applying ${topic}: ${(err as Error).message}`;
    }
  };

  const link = new MqttLink({
    ...options,
    clientId: options.clientId ?? `edgetable-hub-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    reconnectPeriodMs: options.reconnectPeriodMs ?? 250,
    subscriptions: [SCHEMA_SUBSCRIPTION, options.shareGroup ? hubSubscription(options.shareGroup) : `${TOPIC_ROOT}/+/+/+`],
    onState: (_online, error) => {
      if (error !== undefined) lastError = error;
    },
    onMessage: (topic, payload) => {
      const t = parseTopic(topic);
      if (t.kind === 'schema') onSchema(t.deviceId, t.table, payload);
      else if (t.kind === 'batch') onBatch(topic, t.deviceId, t.table, t.shard, payload);
    },
  });

  return {
    status: () => ({
      online: link.online,
      ...((lastError ?? link.lastError) !== undefined ? { lastError: lastError ?? link.lastError } : {}),
      ...counters,
      rejected: [...rejected],
      gaps: db.store.closed ? [] : db.store.read((txn) => readGaps(txn, syncDb)),
      tables: [...hubTables].sort(),
    }),
    stop: async () => {
      await acks;
      await link.close();
      if (ownsDb) db.close();
    },
  };
}
