/**
 * The engine's background work (TTL sweeps, partition splits, GSI backfills) runs in steps between
 * requests. A step that throws (a full SD card reports EIO or MAP_FULL at commit) must not end the
 * process, and must not spin: `attempt` catches it, counts it in one plain object per job (what
 * `db.backgroundStatus()` returns, `edgetable stats` prints, and metrics can export), reports the
 * first failure of a streak and the recovery through `report`, and tells the caller how long to
 * back off before the next try: BACKOFF_BASE_MS doubling per consecutive failure, at most
 * BACKOFF_MAX_MS. Foreground requests are not affected: they get their own errors.
 */
import { StorageError } from '../storage/storage-error.js';

export const BACKGROUND_JOBS = ['ttlSweep', 'split', 'backfill', 'streamTrim'] as const;
export type BackgroundJob = (typeof BACKGROUND_JOBS)[number];

export const BACKOFF_BASE_MS = 250;
export const BACKOFF_MAX_MS = 10_000;

export type JobCounters = {
  /** Steps that completed. */
  steps: number;
  /** Steps that threw. */
  failures: number;
  /** Failures since the last completed step (0: healthy). */
  consecutiveFailures: number;
  /** `name[code]: message` of the last failure. */
  lastError?: string;
  lastFailureAt?: number;
  lastSuccessAt?: number;
};

export type BackgroundStatus = { healthy: boolean; jobs: Record<BackgroundJob, JobCounters> };

export type Attempt<T> = { ok: true; value: T } | { ok: false; retryInMs: number };

export class BackgroundJobs {
  readonly counters: Record<BackgroundJob, JobCounters>;

  constructor(
    private readonly now: () => number,
    private readonly report: (message: string) => void = (m) => console.error(m),
  ) {
    this.counters = { ttlSweep: newCounters(), split: newCounters(), backfill: newCounters(), streamTrim: newCounters() };
  }

  /** Runs one step of `job`, catching anything it throws. */
  attempt<T>(job: BackgroundJob, step: () => T): Attempt<T> {
    const c = this.counters[job];
    try {
      const value = step();
      c.steps++;
      c.lastSuccessAt = this.now();
      if (c.consecutiveFailures > 0) this.report(`edgetable: background ${job} recovered after ${c.consecutiveFailures} failed attempts`);
      c.consecutiveFailures = 0;
      return { ok: true, value };
    } catch (error) {
      c.failures++;
      c.consecutiveFailures++;
      c.lastFailureAt = this.now();
      c.lastError = describe(error);
      const retryInMs = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.min(16, c.consecutiveFailures - 1));
      if (c.consecutiveFailures === 1) this.report(`edgetable: background ${job} failed, retrying with back-off: ${c.lastError}`);
      return { ok: false, retryInMs };
    }
  }

  status(): BackgroundStatus {
    const jobs = structuredClone(this.counters);
    return { healthy: BACKGROUND_JOBS.every((j) => jobs[j].consecutiveFailures === 0), jobs };
  }
}

function newCounters(): JobCounters {
  return { steps: 0, failures: 0, consecutiveFailures: 0 };
}

function describe(error: unknown): string {
  if (error instanceof StorageError) return `${error.name}[${error.code}]: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
