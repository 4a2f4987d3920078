/**
 * The hub's upkeep: the version collector (collect-versions.ts), the hub log's pruning
 * (replication/hub-log.ts) and the dead letters' retention and cap (hub-bounds.ts), each on its
 * timer and on demand (Hub.collectVersions). Errors are counted and reported, never fatal.
 */
import type { Edgetable } from '../edgetable.js';
import { DEAD_LETTER_TABLE } from '../replication/dead-letters.js';
import { log } from '../log/logger.js';
import type { ForwardOptions } from './forward/start-forwarder.js';
import type { HubBounds } from './hub-bounds.js';
import type { HubHealth } from './hub-health.js';

export type HubUpkeepOptions = {
  readonly replica: Edgetable['replica'];
  /** Only merged hub tables keep a log to prune. */
  readonly mode: 'merged' | 'per-device';
  /** Version records (and log records) older than this are collected. */
  readonly horizonMs: number;
  /** With forwarding, a forwarded table's log keeps what the forwarder has not read. */
  readonly forward: ForwardOptions | undefined;
  readonly bounds: HubBounds;
  readonly health: HubHealth;
};

export class HubUpkeep {
  /** A dead-letter sweep under way; stopPruning() waits for it. */
  private trimming: Promise<void> | undefined;
  // The timer's pass commits each of its txns off the event loop; stopCollecting() ends it between txns.
  private collecting: Promise<void> | undefined;
  private collectStopped = false;
  private collectTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: HubUpkeepOptions) {}

  /** Every `everyMs` (0: never), a collector pass in the background. */
  startCollecting(everyMs: number): void {
    this.collectTimer = everyMs > 0 ? setInterval(() => this.collectInBackground(), everyMs).unref() : undefined;
  }

  /** Every `everyMs` (0: never), a prune of the hub log, then a dead-letter sweep. */
  startPruning(everyMs: number): void {
    this.pruneTimer =
      everyMs > 0
        ? setInterval(() => {
            try {
              this.prune();
              this.trimDeadLetters();
            } catch (err) {
              this.o.health.failed(`pruning the hub log: ${(err as Error).message}`);
            }
          }, everyMs).unref()
        : undefined;
  }

  /** The collector and the pruner now, in this txn; then a dead-letter sweep starts. Returns the total versions collected. */
  collectNow(): number {
    const { counters } = this.o.health;
    try {
      counters.versionsCollected += this.o.replica.collectVersions(this.o.horizonMs, Date.now());
      this.prune();
    } catch (err) {
      this.collectFailed(err);
    }
    this.trimDeadLetters();
    return counters.versionsCollected;
  }

  /** Ends the collector's timer and its pass under way: its txn in hand commits; the rest waits for the next start. */
  async stopCollecting(): Promise<void> {
    clearInterval(this.collectTimer);
    this.collectStopped = true;
    await this.collecting;
  }

  /** Ends the prune timer; resolves once a dead-letter sweep under way is done. */
  async stopPruning(): Promise<void> {
    clearInterval(this.pruneTimer);
    await this.trimming;
  }

  private prune(): void {
    const { replica, forward, bounds } = this.o;
    if (this.o.mode !== 'merged' || !replica.open) return;
    const forwarded = (name: string) => forward !== undefined && name !== DEAD_LETTER_TABLE && (forward.tables === undefined || forward.tables.includes(name));
    for (const table of replica.tables()) {
      this.o.health.counters.logRecordsPruned += replica.pruneLog(table.name, {
        horizonMs: this.o.horizonMs,
        nowMs: Date.now(),
        ...(forwarded(table.name) ? { forwardCursor: (shard: number) => replica.readCursor(forward!.endpoint, table.name, shard) } : {}),
        maxRecords: bounds.logCap.maxRecords,
        onUnread: (records, shard) => {
          bounds.logCap.onUnread(records);
          log('hub').warn({ table: table.name, shard, records }, `the hub log of ${table.name} is over its cap: ${records} records of shard ${shard} pruned before every reader had them`);
        },
      });
    }
  }

  /** The dead letters' retention and cap, after each prune; one sweep at a time. */
  private trimDeadLetters(): void {
    if (this.trimming !== undefined || !this.o.replica.open) return;
    this.trimming = this.o.bounds
      .trimDeadLetters(Date.now())
      .catch((err: unknown) => {
        this.o.health.failed(`trimming the dead letters: ${(err as Error).message}`);
      })
      .finally(() => {
        this.trimming = undefined;
      });
  }

  private collectFailed(err: unknown): void {
    this.o.health.failed(`collecting versions: ${(err as Error).message}`);
  }

  private collectInBackground(): void {
    if (this.collecting !== undefined || this.collectStopped || !this.o.replica.open) return;
    const { counters } = this.o.health;
    this.collecting = (async () => {
      try {
        counters.versionsCollected += await this.o.replica.collectVersions(this.o.horizonMs, Date.now(), () => this.collectStopped);
        if (!this.collectStopped) this.prune();
      } catch (err) {
        this.collectFailed(err);
      }
    })().finally(() => {
      this.collecting = undefined;
    });
  }
}
