/**
 * The device side of sync (docs/sync.md). The change log is the outbox: the agent polls each
 * synced table's shards, publishes records after each shard's cursor in size- and time-bounded
 * batches, and moves the cursor only when the hub acknowledges (stream/acknowledge-shard.ts). At
 * most one batch per shard is in flight; a batch unacknowledged after ackTimeoutMs, and every
 * batch in flight when the link drops, is sent again from the cursor (the hub is idempotent), so a
 * crash or an outage on either side replays and never skips. Nothing here blocks the synchronous
 * engine: each step is a short read or write txn on a timer.
 *
 * Works on a store another process writes to: every poll starts new read txns, which see the
 * other process's commits.
 */
import { decodeStreamRecord } from '../stream/change-record.js';
import { acknowledgeShard, oldestUnackedTimeMs } from '../stream/acknowledge-shard.js';
import { enableSync } from '../stream/enable-sync.js';
import { listShardIds, readShardHeader, type ShardHeader } from '../stream/shard-state.js';
import { readShardRaw } from '../stream/stream-reader.js';
import type { Table } from '../table/table.js';
import type { Edgetable } from '../edgetable.js';
import { MqttLink } from './mqtt-link.js';
import { readShardStates, shardSyncStatus, type ShardState } from './shard-status.js';
import { decodeSyncAck, encodeSyncBatch, type SyncAck } from './sync-batch.js';
import type { ResolvedSyncOptions, ShardSyncStatus, SyncStatus } from './sync-options.js';
import { tableSchema } from './table-schema.js';
import { ackTopic, batchTopic, schemaTopic } from './topics.js';

type InFlight = { readonly lastSeq: number; readonly sentAt: number };
type Waiter = { readonly targets: Map<string, number>; readonly resolve: () => void; readonly reject: (err: Error) => void };

export class SyncAgent {
  private readonly link: MqttLink;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly retryAt = new Map<string, number>();
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private stopped = false;
  private lastError: string | undefined;
  private batchesSent = 0;
  private recordsAcked = 0;
  private wireBytesSent = 0;
  private rejectedAcks = 0;

  constructor(
    private readonly db: Edgetable,
    private readonly options: ResolvedSyncOptions,
  ) {
    const settings = { outboxBudgetBytes: options.outboxBudgetBytes, whenFull: options.whenFull, retentionMs: options.retentionMs };
    for (const name of options.tables) enableSync(db.store, db.context.catalog.require(name), settings);
    this.link = new MqttLink({
      ...options,
      subscriptions: [ackTopic(options.deviceId)],
      onMessage: (_topic, payload) => this.onAck(payload),
      onState: (online, error) => this.onLinkState(online, error),
    });
    this.timer = setInterval(() => this.pump(), options.pollIntervalMs);
  }

  flushed(): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('sync stopped'));
    const targets = new Map<string, number>();
    for (const { table, shard, header } of this.shardHeaders()) {
      if (header.ackedSeq < header.nextSeq - 1) targets.set(shardKey(table.name, shard), header.nextSeq - 1);
    }
    if (targets.size === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ targets, resolve, reject });
      setImmediate(() => this.pump());
    });
  }

  status(): SyncStatus {
    const now = Date.now();
    const shards = this.shardHeaders().map((state) => shardSyncStatus(this.db, state, now, this.inFlight.has(shardKey(state.table.name, state.shard))));
    const lastError = this.lastError ?? this.link.lastError;
    return {
      deviceId: this.options.deviceId,
      online: this.link.online,
      ...(lastError !== undefined ? { lastError } : {}),
      batchesSent: this.batchesSent,
      recordsAcked: this.recordsAcked,
      wireBytesSent: this.wireBytesSent,
      rejectedAcks: this.rejectedAcks,
      shards,
    };
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    for (const w of this.waiters.splice(0)) w.reject(new Error('sync stopped before everything was acknowledged'));
    await this.link.close();
  }

  private onLinkState(online: boolean, error?: string): void {
    if (error !== undefined) this.lastError = error;
    // Whatever was in flight may be lost with the link: send it again from the cursor.
    this.inFlight.clear();
    this.retryAt.clear();
    if (!online || this.stopped) return;
    this.lastError = undefined;
    for (const name of this.options.tables) {
      const table = this.db.context.catalog.find(name);
      if (table) this.link.publish(schemaTopic(this.options.deviceId, name), JSON.stringify(tableSchema(table.def)), true);
    }
    this.pump();
  }

  private onAck(payload: Buffer): void {
    if (this.stopped) return;
    let ack: SyncAck;
    try {
      ack = decodeSyncAck(payload);
    } catch (err) {
      this.lastError = `malformed ack: ${(err as Error).message}`;
      return;
    }
    const key = shardKey(ack.table, ack.shard);
    const table = this.db.context.catalog.find(ack.table);
    if (!table || !this.options.tables.includes(ack.table)) return;
    if (ack.status === 'rejected') {
      this.rejectedAcks += 1;
      this.lastError = `hub rejected ${ack.table}/${ack.shard}: ${ack.message}`;
      this.inFlight.delete(key);
      this.retryAt.set(key, Date.now() + this.options.ackTimeoutMs);
      return;
    }
    try {
      // The promise path's flushing (storage/store.ts deferFlush): no flush blocks the event loop
      // for the meta page. A power cut before the sync finishes only makes the device send these
      // records again, which the hub counts as duplicates.
      const store = this.db.store;
      this.recordsAcked += store.deferFlush(() => acknowledgeShard(store, table, ack.shard, ack.seq, this.options.retentionMs, Date.now()));
      if (store.hasUnflushedCommits) {
        store.sync().catch((err: unknown) => {
          this.lastError = `flushing an ack failed: ${(err as Error).message}`;
        });
      }
    } catch (err) {
      this.lastError = `recording ack failed: ${(err as Error).message}`;
      return;
    }
    const flight = this.inFlight.get(key);
    if (flight && ack.seq >= flight.lastSeq) this.inFlight.delete(key);
    setImmediate(() => this.pump());
  }

  /** One pass over every synced shard: settle flush waiters, send what is due. */
  private pump(): void {
    if (this.stopped || this.pumping || this.db.store.closed) return;
    this.pumping = true;
    try {
      const headers = this.shardHeaders();
      this.settleWaiters(headers);
      if (!this.link.online) return;
      const now = Date.now();
      const byId = new Map(headers.map((h) => [shardKey(h.table.name, h.shard), h.header]));
      for (const { table, shard, header } of headers) this.sendDue(table, shard, header, byId, now);
    } catch (err) {
      this.lastError = (err as Error).message;
    } finally {
      this.pumping = false;
    }
  }

  private sendDue(table: Table, shard: number, header: ShardHeader, byId: Map<string, ShardHeader>, now: number): void {
    const key = shardKey(table.name, shard);
    const last = header.nextSeq - 1;
    if (header.ackedSeq >= last) return;
    const flight = this.inFlight.get(key);
    if (flight && now - flight.sentAt < this.options.ackTimeoutMs) return;
    if ((this.retryAt.get(key) ?? 0) > now) return;
    if (header.parent !== undefined) {
      const parent = byId.get(shardKey(table.name, header.parent));
      if (parent && parent.ackedSeq < parent.nextSeq - 1) return; // parents first
    }
    const records = readShardRaw(this.db.store, table.name, shard, header.ackedSeq + 1, this.options.batchMaxRecords, this.options.batchMaxBytes);
    if (records.length === 0) return;
    const lastSent = records[records.length - 1]!.seq;
    const full = lastSent < last || records.length >= this.options.batchMaxRecords;
    if (!full && this.waiters.length === 0 && now - decodeStreamRecord(records[0]!.bytes).timeMs < this.options.batchMaxDelayMs) return;
    const payload = encodeSyncBatch({ deviceId: this.options.deviceId, table: table.name, shard, parent: header.parent, records }, this.options.compression);
    if (!this.link.publish(batchTopic(this.options.deviceId, table.name, shard), payload)) return;
    this.inFlight.set(key, { lastSeq: lastSent, sentAt: now });
    this.batchesSent += 1;
    this.wireBytesSent += payload.length;
  }

  private settleWaiters(headers: { table: Table; shard: number; header: ShardHeader }[]): void {
    if (this.waiters.length === 0) return;
    const acked = new Map(headers.map((h) => [shardKey(h.table.name, h.shard), h.header.ackedSeq]));
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if ([...w.targets].every(([k, seq]) => (acked.get(k) ?? 0) >= seq)) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  private shardHeaders(): ShardState[] {
    return readShardStates(this.db, this.options.tables);
  }
}

function shardKey(table: string, shard: number): string {
  return `${table}\u0000${shard}`;
}
