/**
 * The hub's acks of this device's batches. An 'applied' or 'refused' ack moves the shard's cursor
 * (stream/acknowledge-shard.ts) and merges the hub's clock into the store clock in the ack's txn; a
 * 'refused' one moves it past the refused records (kept in the hub's dead-letter table), counted
 * here and persisted (stream/sync-refusals.ts). A 'retry' ack sends the batch again after
 * ackTimeoutMs; a 'conflict' ack goes to table-conflicts.ts. An ack for another incarnation or
 * TableId (a late ack of an old stream) is ignored (staleAcks).
 */
import type { Replica } from '../replication/replica.js';
import { BASE_SHARD, type ReplicaTable } from '../replication/replica-types.js';
import type { BaseSender } from './base-sender.js';
import { decodeSyncAck, type SyncAck } from './protocol/sync-batch.js';
import type { AgentHealth } from './agent-health.js';
import type { ShardFlights } from './shard-flights.js';
import { shardKey } from './shard-key.js';
import type { TableConflicts } from './table-conflicts.js';
import type { UpCounters } from './up-counters.js';
import type { WriteRejections } from './write-rejections.js';

export type AckHandlerDeps = {
  readonly replica: Pick<Replica, 'table' | 'acknowledge'>;
  readonly tables: readonly string[];
  readonly incarnation: string;
  readonly ackTimeoutMs: number;
  readonly retentionMs: number;
  readonly maxClockDriftMs: number;
  readonly counters: UpCounters;
  readonly health: AgentHealth;
  readonly flights: ShardFlights;
  readonly conflicts: TableConflicts;
  readonly rejections: WriteRejections;
  readonly base: Pick<BaseSender, 'onAck'>;
  readonly online: () => boolean;
  readonly announce: (table: ReplicaTable) => void;
  /** Asks for a poll soon (after the ack). */
  readonly kick: () => void;
};

export class AckHandler {
  /**
   * Shards whose ack is being recorded: its commit runs on a worker, so the moved cursor is visible
   * before the ack's counters, rejections and restores are; flush waiters wait for the whole ack.
   */
  private readonly recording = new Set<string>();

  constructor(private readonly deps: AckHandlerDeps) {}

  /** Shard keys whose ack is being recorded. */
  get acking(): ReadonlySet<string> {
    return this.recording;
  }

  /** Resolves once the ack is recorded (its commit durable) or found stale; never rejects. */
  async onAck(payload: Buffer): Promise<void> {
    let ack: SyncAck;
    try {
      ack = decodeSyncAck(payload);
    } catch (err) {
      this.deps.health.lastError = `malformed ack: ${(err as Error).message}`;
      return;
    }
    try {
      await this.applyAck(ack);
    } catch (err) {
      this.deps.health.failed(err, 'recording ack failed: ');
    }
  }

  private async applyAck(ack: SyncAck): Promise<void> {
    const { deps } = this;
    const key = shardKey(ack.table, ack.shard);
    const table = deps.replica.table(ack.table);
    if (!table || !deps.tables.includes(ack.table)) return;
    if (ack.incarnation !== deps.incarnation || ack.tableId !== table.def.TableId) {
      deps.counters.staleAcks += 1; // an ack of a stream this store no longer has
      return;
    }
    if (ack.status === 'conflict') {
      deps.conflicts.onConflictAck(table, ack);
      return;
    }
    if (ack.status === 'retry') {
      deps.counters.rejectedAcks += 1;
      deps.health.lastError = `hub rejected ${ack.table}/${ack.shard}: ${ack.message}`;
      if (ack.shard === BASE_SHARD) void deps.base.onAck(ack, table.def.TableId);
      deps.flights.retryAfter(key, Date.now() + deps.ackTimeoutMs);
      // A hub that lost the schema (restarted after its retained copy was cleared) gets it again.
      if (deps.online()) deps.announce(table);
      return;
    }
    if (ack.status === 'applied') deps.conflicts.delete(ack.table);
    this.recording.add(key);
    try {
      if (ack.shard === BASE_SHARD) {
        await deps.base.onAck(ack, table.def.TableId);
        if (ack.status === 'refused') deps.health.lastError = `hub refused a base-read page of ${ack.table} (kept in its dead-letter table): ${ack.message}`;
        await deps.rejections.answer(table, ack);
      } else {
        await this.recordAck(ack, key, table);
      }
    } finally {
      this.recording.delete(key);
    }
    deps.kick();
  }

  /** The ack's commit (cursor, clock, refusals), then its counters, rejections and restores. */
  private async recordAck(ack: SyncAck, key: string, table: ReplicaTable): Promise<void> {
    const { deps } = this;
    const { counters, health } = deps;
    const refused = ack.status === 'refused';
    const outcome = await deps.replica.acknowledge(table.name, ack.shard, ack.seq, deps.retentionMs, {
      hubClock: ack.hubClock,
      maxDriftMs: deps.maxClockDriftMs,
      ...(refused ? { refusedMessage: ack.message } : {}),
    });
    if (outcome.clockRefused) {
      counters.clockRefused += 1;
      health.lastError = `hub clock ${ack.hubClock.ms} is more than ${deps.maxClockDriftMs} ms ahead of this device's; not merged`;
    }
    // The local guard: this store's clock far ahead of the hub's (its wall clock was once in the
    // future). Its writes keep their order, and win their keys at the hub until real time passes.
    if (outcome.clock && outcome.clock.ms > ack.hubClock.ms + deps.maxClockDriftMs) {
      counters.clockAhead += 1;
      health.lastError = `this store's clock is ${outcome.clock.ms - ack.hubClock.ms} ms ahead of the hub's (over maxClockDriftMs ${deps.maxClockDriftMs})`;
    }
    if (refused) {
      counters.refusedBatches += 1;
      counters.refusedRecords += outcome.records;
      health.lastError = `hub refused ${ack.table}/${ack.shard} up to ${ack.seq} (kept in its dead-letter table): ${ack.message}`;
    } else {
      counters.recordsAcked += outcome.records;
    }
    await deps.rejections.answer(table, ack);
    health.ackRecorded();
    deps.flights.acked(key, ack.seq);
  }
}
