/**
 * The agent's last error, its storage error count and its backoff: an error of a poll or an ack is
 * counted and reported, and polling pauses (doubling from pollIntervalMs up to MAX_BACKOFF_MS)
 * until a poll succeeds again.
 */

/** Longest pause between polls after repeated errors. */
export const MAX_BACKOFF_MS = 5000;

export class AgentHealth {
  lastError: string | undefined;
  storageErrors = 0;
  private failures = 0;
  private pausedUntil = 0;

  constructor(private readonly pollIntervalMs: number) {}

  /** Counts and reports an error and backs polling off; never rethrows. */
  failed(err: unknown, prefix = ''): void {
    this.storageErrors += 1;
    this.failures += 1;
    this.lastError = `${prefix}${(err as Error).message}`;
    const pause = Math.min(MAX_BACKOFF_MS, this.pollIntervalMs * 2 ** Math.min(this.failures, 16));
    this.pausedUntil = Date.now() + pause;
  }

  paused(now: number): boolean {
    return now < this.pausedUntil;
  }

  /** A poll read the shards after failures: the error is over. */
  pollSucceeded(): void {
    if (this.failures > 0) {
      this.failures = 0;
      this.lastError = undefined;
    }
  }

  /** An ack was recorded: the next failure backs off from the start. */
  ackRecorded(): void {
    this.failures = 0;
  }
}
