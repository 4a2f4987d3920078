/**
 * Runs a device's tombstone collection (collect-tombstones.ts) in the background of its sync
 * agent, off the write path: every `intervalMs` a pass over each received table, one bounded step
 * (one short write txn) per turn of the event loop, so local writes and sync messages interleave,
 * as the engine's TTL sweeps do (background-work.ts). The timer and the steps are unref'd: the
 * collector never keeps a process alive. A step that throws ends the pass (reported through
 * `onError`); the next pass resumes from the persisted position.
 */
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import type { Table } from '../table/table.js';
import { collectTombstones, collectTombstonesStep, recordAckCheckpoint, type TombstoneContext } from './collect-tombstones.js';

export type TombstoneCollectorOptions = {
  readonly store: Store;
  readonly syncDb: Database;
  /** The tables received from the hub that keep version records, as they are now. */
  readonly tables: () => readonly Table[];
  readonly self: { readonly device: string; readonly incarnation: string };
  readonly horizonMs: number;
  readonly marginMs: number;
  /** 0: no timer (collectNow only). */
  readonly intervalMs: number;
  readonly onError: (message: string) => void;
};

export class TombstoneCollector {
  /** Tombstones dropped since start. */
  collected = 0;
  private readonly timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private queue: Table[] = [];
  private stopped = false;

  constructor(private readonly o: TombstoneCollectorOptions) {
    this.timer = o.intervalMs > 0 ? setInterval(() => this.start(), o.intervalMs).unref() : undefined;
  }

  /** Starts a background pass unless one is running. */
  start(): void {
    if (this.stopped || this.immediate !== undefined || this.o.store.closed) return;
    this.queue = [...this.o.tables()];
    if (this.queue.length > 0) this.next(true);
  }

  /** A whole pass now, synchronously; returns the tombstones it dropped. */
  collectNow(): number {
    let dropped = 0;
    for (const table of this.o.tables()) dropped += collectTombstones({ ...this.context(table), now: Date.now });
    this.collected += dropped;
    return dropped;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  private next(first: boolean): void {
    this.immediate = setImmediate(() => this.turn(first)).unref();
  }

  /** One step of the table at the head of the queue (its checkpoint first). */
  private turn(first: boolean): void {
    this.immediate = undefined;
    const table = this.queue[0];
    if (this.stopped || this.o.store.closed || table === undefined) return;
    try {
      const ctx = { ...this.context(table), nowMs: Date.now() };
      if (first) recordAckCheckpoint(ctx);
      const step = collectTombstonesStep(ctx);
      this.collected += step.dropped;
      if (step.done) this.queue.shift();
      if (this.queue.length > 0) this.next(step.done);
    } catch (err) {
      this.queue = [];
      this.o.onError(`collecting tombstones of ${table.name}: ${(err as Error).message}`);
    }
  }

  private context(table: Table): Omit<TombstoneContext, 'nowMs'> {
    return { store: this.o.store, syncDb: this.o.syncDb, table, self: this.o.self, horizonMs: this.o.horizonMs, marginMs: this.o.marginMs };
  }
}
