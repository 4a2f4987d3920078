/**
 * Sends a shard's next batch when it is due: the records after its cursor, size- and time-bounded,
 * at most one batch in flight per shard (shard-flights.ts), parents before children. A shard of a
 * table received from the hub never sends the hub's writes back: its cursor passes over them.
 */
import { decodeStreamRecord, recordOrigin, type ChangeEntry, type ReplicaTable, type ShardHeader } from '../replication/replica-types.js';
import type { Replica } from '../replication/replica.js';
import { encodeSyncBatch } from './protocol/sync-batch.js';
import type { Direction } from './protocol/down-messages.js';
import type { ResolvedSyncOptions } from './sync-options.js';
import type { ShardFlights } from './shard-flights.js';
import { shardKey } from './shard-key.js';
import type { UpCounters } from './up-counters.js';

export type ShardSenderDeps = {
  readonly replica: Pick<Replica, 'readChanges' | 'acknowledge'>;
  readonly options: Pick<ResolvedSyncOptions, 'deviceId' | 'ackTimeoutMs' | 'batchMaxRecords' | 'batchMaxBytes' | 'batchMaxDelayMs' | 'retentionMs' | 'compression'>;
  readonly incarnation: string;
  readonly direction: (table: string) => Direction;
  readonly flights: ShardFlights;
  readonly counters: UpCounters;
  /** The table is in conflict and not probing: nothing of it is sent. */
  readonly held: (table: string) => boolean;
  /** Someone waits in flushed(): a batch goes without waiting for batchMaxDelayMs. */
  readonly flushing: () => boolean;
  readonly topic: (table: string, shard: number) => string;
  /** False when offline (nothing sent). */
  readonly publish: (topic: string, payload: Uint8Array) => boolean;
  readonly kick: () => void;
  readonly onError: (err: unknown) => void;
};

export class ShardSender {
  /** Shards whose cursor is moving past received writes (an asynchronous commit in flight). */
  private readonly skipping = new Map<string, Promise<void>>();

  constructor(private readonly deps: ShardSenderDeps) {}

  /** The cursor moves in flight; each settles (never rejects) once its commit is durable or failed. */
  skips(): Promise<void>[] {
    return [...this.skipping.values()];
  }

  /** `byId`: every synced shard's header by shard key (for the parent's). */
  sendDue(table: ReplicaTable, shard: number, header: ShardHeader, byId: Map<string, ShardHeader>, now: number): void {
    const { deps } = this;
    const { options } = deps;
    const key = shardKey(table.name, shard);
    const last = header.nextSeq - 1;
    if (header.ackedSeq >= last || this.skipping.has(key)) return;
    if (deps.held(table.name)) return;
    if (!deps.flights.maySend(key, now)) return;
    if (header.parent !== undefined) {
      const parent = byId.get(shardKey(table.name, header.parent));
      if (parent && parent.ackedSeq < parent.nextSeq - 1) return; // parents first
    }
    // Not past `last`: the header may stop short of what is committed (durable-outbox.ts).
    let records = deps.replica.readChanges(table.name, shard, header.ackedSeq + 1, Math.min(options.batchMaxRecords, last - header.ackedSeq), options.batchMaxBytes);
    if (records.length === 0) return;
    const direction = deps.direction(table.name);
    if (direction !== 'up') {
      // Writes received from the hub are not sent back: the cursor passes over them here, and a
      // batch is a run of the device's own writes, which names the cursor it follows (`after`).
      const own = direction === 'both' ? ownRun(records) : { skipTo: records[records.length - 1]!.seq, run: [] };
      if (own.skipTo !== undefined) {
        // Off the event loop like every commit of the agent; this shard waits for it.
        const skipped = deps.replica.acknowledge(table.name, shard, own.skipTo, options.retentionMs).then(
          () => {
            this.skipping.delete(key);
            deps.kick();
          },
          (err: unknown) => {
            this.skipping.delete(key);
            deps.onError(err);
          },
        );
        this.skipping.set(key, skipped);
        return;
      }
      records = own.run;
    }
    const lastSent = records[records.length - 1]!.seq;
    const full = lastSent < last || records.length >= options.batchMaxRecords;
    if (!full && !deps.flushing() && now - decodeStreamRecord(records[0]!.bytes).timeMs < options.batchMaxDelayMs) return;
    const payload = encodeSyncBatch(
      {
        deviceId: options.deviceId,
        incarnation: deps.incarnation,
        table: table.name,
        tableId: table.def.TableId,
        shard,
        parent: header.parent,
        records,
        ...(direction === 'both' ? { after: header.ackedSeq } : {}),
      },
      options.compression,
    );
    if (!deps.publish(deps.topic(table.name, shard), payload)) return;
    deps.flights.sent(key, lastSent, now);
    deps.counters.batchesSent += 1;
    deps.counters.wireBytesSent += payload.length;
  }
}

/**
 * The records a 'both' table's shard sends next: when it starts with received writes (they carry
 * an origin), `skipTo` is the last of them (the cursor passes over them); otherwise `run` is the
 * device's own writes up to the next received one.
 */
function ownRun(records: readonly ChangeEntry[]): { skipTo?: number; run: ChangeEntry[] } {
  let skipTo: number | undefined;
  for (const r of records) {
    if (recordOrigin(r.bytes) === undefined) break;
    skipTo = r.seq;
  }
  if (skipTo !== undefined) return { skipTo, run: [] };
  const run: ChangeEntry[] = [];
  for (const r of records) {
    if (recordOrigin(r.bytes) !== undefined) break;
    run.push(r);
  }
  return { run };
}
