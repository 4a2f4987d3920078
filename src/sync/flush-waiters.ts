/**
 * Callers of flushed(): each waits for shards' cursors to reach their targets (no ack of them being
 * recorded) and for tables' first-sync base reads to be done.
 */
import { BASE_SHARD, type ShardPosition } from '../replication/replica-types.js';
import { isShardOf, shardKey } from './shard-key.js';

/** `bases`: tables whose first-sync base read must be done too. */
type Waiter = { readonly targets: Map<string, number>; readonly bases: readonly string[]; readonly resolve: () => void; readonly reject: (err: Error) => void };

export class FlushWaiters {
  private readonly waiters: Waiter[] = [];

  get size(): number {
    return this.waiters.length;
  }

  /** `targets`: per shard key, the seq its cursor must reach. */
  wait(targets: Map<string, number>, bases: readonly string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiters.push({ targets, bases, resolve, reject });
    });
  }

  /** Resolves the waiters whose shards and base reads are done. */
  settle(headers: readonly ShardPosition[], acking: ReadonlySet<string>, baseDone: (table: string) => boolean): void {
    if (this.waiters.length === 0) return;
    const acked = new Map(headers.map((h) => [shardKey(h.table.name, h.shard), h.header.ackedSeq]));
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if ([...w.targets].every(([k, seq]) => !acking.has(k) && (acked.get(k) ?? 0) >= seq) && w.bases.every((t) => !acking.has(shardKey(t, BASE_SHARD)) && baseDone(t))) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  /** Rejects the waiters on any shard or base read of the table, each with a new error. */
  rejectTable(table: string, error: () => Error): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if ([...w.targets.keys()].some((k) => isShardOf(k, table)) || w.bases.includes(table)) {
        this.waiters.splice(i, 1);
        w.reject(error());
      }
    }
  }

  rejectAll(err: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(err);
  }
}
