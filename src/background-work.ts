/**
 * The engine's work between requests: GSI backfills, partition splits, TTL sweeps and stream trims, each a loop
 * of bounded steps (one per turn of the event loop, so requests interleave), all run through
 * BackgroundJobs (table/background-jobs.ts): a step that throws is counted and reported, and its
 * loop retries after a back-off instead of ending the process. Timers are unref'd where the work
 * may wait (sweeps, split checks, retries): background work never keeps a process alive on its own.
 */
import { BackgroundJobs, type BackgroundJob } from './table/background-jobs.js';
import { backfillStep } from './table/gsi-backfill.js';
import { beginSplit, splitPartition, splitStep, type SplitResult } from './table/partition-split.js';
import { hotPartitions, oversizedPartitions } from './table/split-policy.js';
import type { TtlSweeper } from './table/ttl-sweep.js';
import type { EngineContext } from './ops/engine-context.js';

export type BackgroundOptions = {
  readonly splitThresholdBytes: number;
  readonly heatSplitsOnDemand: boolean;
  /** 0 disables the timer. */
  readonly splitCheckIntervalMs: number;
  readonly ttlSweepIntervalMs: number;
  /** 0 disables the timer. */
  readonly streamTrimIntervalMs: number;
  /** Deletes stream records past their retention (streams-api/trim-streams.ts). */
  readonly trimStreams: () => unknown;
};

/** Runs `step` once per turn while it returns true; on a throw, again after the back-off. */
class StepLoop {
  private immediate: NodeJS.Immediate | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly jobs: BackgroundJobs,
    private readonly job: BackgroundJob,
    private readonly step: () => boolean,
    private readonly onIdle: () => void,
    private readonly isClosed: () => boolean,
    private readonly keepsAlive: boolean,
  ) {}

  get running(): boolean {
    return this.immediate !== undefined || this.retry !== undefined;
  }

  kick(): void {
    if (!this.running) this.next();
  }

  stop(): void {
    if (this.immediate) clearImmediate(this.immediate);
    if (this.retry) clearTimeout(this.retry);
    this.immediate = this.retry = undefined;
  }

  private next(): void {
    this.immediate = setImmediate(() => this.run());
    if (!this.keepsAlive) this.immediate.unref();
  }

  private run(): void {
    this.immediate = this.retry = undefined;
    if (this.isClosed()) return;
    const result = this.jobs.attempt(this.job, this.step);
    if (!result.ok) {
      this.retry = setTimeout(() => this.run(), result.retryInMs).unref();
    } else if (result.value) {
      this.next();
    } else {
      this.onIdle();
    }
  }
}

export class BackgroundWork {
  readonly jobs: BackgroundJobs;
  private readonly backfills = new Map<string, { table: string; index: string }>();
  private readonly splits = new Set<string>();
  private readonly backfillLoop: StepLoop;
  private readonly splitLoop: StepLoop;
  private readonly sweepLoop: StepLoop;
  private readonly timers: NodeJS.Timeout[] = [];
  private indexWaiters: (() => void)[] = [];
  private splitWaiters: (() => void)[] = [];

  constructor(
    private readonly ctx: EngineContext,
    private readonly sweeper: TtlSweeper,
    private readonly options: BackgroundOptions,
  ) {
    this.jobs = new BackgroundJobs(ctx.now);
    const closed = () => ctx.store.closed;
    this.backfillLoop = new StepLoop(this.jobs, 'backfill', () => this.backfillTurn(), () => (this.indexWaiters = wake(this.indexWaiters)), closed, true);
    this.splitLoop = new StepLoop(this.jobs, 'split', () => this.splitTurn(), () => (this.splitWaiters = wake(this.splitWaiters)), closed, true);
    this.sweepLoop = new StepLoop(this.jobs, 'ttlSweep', () => !this.sweeper.step().done, () => {}, closed, false);
  }

  /** Resumes recorded backfills and splits, and starts the timers (writable stores only). */
  start(): void {
    if (this.ctx.store.readOnly) return;
    let unindexed = false;
    for (const table of this.ctx.catalog.all()) {
      for (const ix of table.def.GlobalSecondaryIndexes) if (ix.IndexStatus === 'CREATING') this.scheduleBackfill(table.name, ix.IndexName);
      if (table.def.split) this.scheduleSplit(table.name);
      if (table.def.TimeToLive && !table.def.TimeToLive.indexed) unindexed = true;
    }
    // A TTL table without a complete expiry index (a store from before it): the next pass builds it.
    if (unindexed && this.options.ttlSweepIntervalMs > 0) this.sweepLoop.kick();
    if (this.options.splitCheckIntervalMs > 0) {
      this.timers.push(setInterval(() => this.jobs.attempt('split', () => this.startDueSplits()), this.options.splitCheckIntervalMs).unref());
    }
    if (this.options.streamTrimIntervalMs > 0) {
      this.timers.push(setInterval(() => {
        if (!this.ctx.store.closed) this.jobs.attempt('streamTrim', this.options.trimStreams);
      }, this.options.streamTrimIntervalMs).unref());
    }
    if (this.options.ttlSweepIntervalMs > 0) {
      this.timers.push(setInterval(() => this.sweepLoop.kick(), this.options.ttlSweepIntervalMs).unref());
    }
  }

  scheduleBackfill(table: string, index: string): void {
    this.backfills.set(`${table}\u0000${index}`, { table, index });
    this.backfillLoop.kick();
  }

  /** Begins splitting `pid` and copies it in the background; false when it cannot split now. */
  startSplit(table: string, pid: number): boolean {
    if (!beginSplit(this.ctx.store, this.ctx.catalog, table, pid)) return false;
    this.scheduleSplit(table);
    return true;
  }

  /** Starts the splits the policy asks for (one per table at a time). */
  startDueSplits(): void {
    for (const { table, pid } of this.dueSplits()) if (!this.splits.has(table)) this.startSplit(table, pid);
  }

  /** Runs every split the policy asks for now, to the end; returns what it split. */
  runDueSplits(): SplitResult[] {
    const done: SplitResult[] = [];
    for (const { table, pid } of this.dueSplits()) {
      const result = splitPartition(this.ctx.store, this.ctx.catalog, table, pid);
      if (result) done.push(result);
    }
    return done;
  }

  startSweep(): void {
    this.sweepLoop.kick();
  }

  whenIndexesActive(): Promise<void> {
    if (this.backfills.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.indexWaiters.push(resolve));
  }

  whenSplitsDone(): Promise<void> {
    if (this.splits.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.splitWaiters.push(resolve));
  }

  stop(): void {
    for (const t of this.timers.splice(0)) clearInterval(t);
    this.backfillLoop.stop();
    this.splitLoop.stop();
    this.sweepLoop.stop();
  }

  /** Partitions over the size threshold or hot (table/split-policy.ts), by table. */
  private dueSplits(): { table: string; pid: number }[] {
    const due: { table: string; pid: number }[] = [];
    for (const table of this.ctx.catalog.all()) {
      const over = this.ctx.store.read((txn) => oversizedPartitions(txn, table, this.options.splitThresholdBytes));
      const hot = hotPartitions(table, this.ctx.throughput, this.ctx.now(), { heatSplitsOnDemand: this.options.heatSplitsOnDemand });
      for (const pid of new Set([...over, ...hot])) due.push({ table: table.name, pid });
    }
    return due;
  }

  private scheduleSplit(table: string): void {
    this.splits.add(table);
    this.splitLoop.kick();
  }

  /** One step of every backfill; true while some remain. */
  private backfillTurn(): boolean {
    for (const [key, { table, index }] of this.backfills) {
      if (backfillStep(this.ctx.store, this.ctx.catalog, table, index)) this.backfills.delete(key);
    }
    return this.backfills.size > 0;
  }

  /** One step of every split in progress; true while some remain. */
  private splitTurn(): boolean {
    for (const table of this.splits) {
      if (splitStep(this.ctx.store, this.ctx.catalog, table) !== 'copying') this.splits.delete(table);
    }
    return this.splits.size > 0;
  }
}

/** Calls every waiter; returns the empty list that replaces them. */
function wake(waiters: (() => void)[]): (() => void)[] {
  for (const w of waiters) w();
  return [];
}
