/**
 * The hub's bounds and what they cost (docs/sync.md "Bounds"): the change log's size cap per
 * table and its retention (the version horizon; hub-log.ts prunes), and the dead letters'
 * retention and count cap (dead-letter-bounds.ts). Counts what the bounds removed, and reports
 * each bound's fill ratio (current size / cap), which rises before anything is dropped for a cap:
 * `nearLimit` (and the metrics' *_near_limit) turns on at NEAR_LIMIT_RATIO.
 */
import type { Edgetable } from '../edgetable.js';
import { countDeadLetters, trimDeadLetters, type DeadLetterLimits } from './dead-letter-bounds.js';
import { DEAD_LETTER_TABLE } from '../replication/dead-letters.js';

export const DEFAULT_LOG_MAX_RECORDS = 1_000_000;
export const NEAR_LIMIT_RATIO = 0.8;
const MAX_SWEEP_EVERY_MS = 3_600_000;
const SIZES_TTL_MS = 1000;

export type HubLogBounds = {
  /** The cap, per table, and the retention (the version horizon). */
  readonly maxRecordsPerTable: number;
  readonly retentionMs: number;
  /** Records held now, in all, and in the fullest table. */
  readonly records: number;
  readonly fullestTable?: string;
  /** The fullest table's records / the cap. */
  readonly fillRatio: number;
  readonly nearLimit: boolean;
  /** Records the cap pruned before a reader had them (a device then re-reads whole; the forwarder misses them). */
  readonly droppedUnread: number;
};

export type DeadLetterBounds = {
  readonly maxItems: number;
  readonly retentionMs: number;
  readonly items: number;
  readonly fillRatio: number;
  readonly nearLimit: boolean;
  /** Deleted for the retention, and for the cap (oldest first). */
  readonly expired: number;
  readonly dropped: number;
};

export type HubBoundsStatus = { readonly hubLog: HubLogBounds; readonly deadLetters: DeadLetterBounds };

export type HubBounds = {
  /** What pruneHubLog needs for the cap. */
  readonly logCap: { readonly maxRecords: number; onUnread(records: number): void };
  /** The dead letters' retention and cap, applied now when due. */
  trimDeadLetters(nowMs: number): Promise<void>;
  status(): HubBoundsStatus;
};

export function createHubBounds(db: Edgetable, o: { logMaxRecords: number; retentionMs: number; deadLetters: DeadLetterLimits; sweepEveryMs?: number }): HubBounds {
  let droppedUnread = 0;
  let expired = 0;
  let dropped = 0;
  let lastSweepMs = 0;
  const sweepEveryMs = o.sweepEveryMs ?? Math.min(MAX_SWEEP_EVERY_MS, o.deadLetters.retentionMs / 10);
  // The sizes cost read txns and a DescribeTable: status() may be polled far more often than they
  // change (a metrics scrape, a loop waiting on a counter), and it shares the event loop with the
  // hub's applies, so they are read at most every SIZES_TTL_MS, and again after a prune or trim.
  let measured: { atMs: number; sizes: ReturnType<Edgetable['replica']['logSizes']>; items: number } | undefined;
  const measure = () => {
    const now = Date.now();
    if (measured === undefined || now - measured.atMs >= SIZES_TTL_MS) {
      measured = { atMs: now, sizes: orNothing(() => db.replica.logSizes(), []), items: orNothing(() => countDeadLetters(db), 0) };
    }
    return measured;
  };
  return {
    logCap: {
      maxRecords: o.logMaxRecords,
      onUnread: (records) => {
        droppedUnread += records;
        measured = undefined;
      },
    },
    trimDeadLetters: async (nowMs) => {
      if (nowMs - lastSweepMs < sweepEveryMs && countDeadLetters(db) <= o.deadLetters.maxItems) return;
      lastSweepMs = nowMs;
      const t = await trimDeadLetters(db, o.deadLetters, nowMs);
      measured = undefined;
      expired += t.expired;
      dropped += t.dropped;
    },
    status: () => {
      const { sizes, items } = measure();
      const fullest = sizes.reduce<(typeof sizes)[number] | undefined>((a, b) => (a === undefined || b.records > a.records ? b : a), undefined);
      const logRatio = fullest ? fullest.records / o.logMaxRecords : 0;
      const dlRatio = items / o.deadLetters.maxItems;
      return {
        hubLog: {
          maxRecordsPerTable: o.logMaxRecords,
          retentionMs: o.retentionMs,
          records: sizes.reduce((n, s) => n + s.records, 0),
          ...(fullest ? { fullestTable: fullest.table } : {}),
          fillRatio: logRatio,
          nearLimit: logRatio >= NEAR_LIMIT_RATIO,
          droppedUnread,
        },
        deadLetters: {
          maxItems: o.deadLetters.maxItems,
          retentionMs: o.deadLetters.retentionMs,
          items,
          fillRatio: dlRatio,
          nearLimit: dlRatio >= NEAR_LIMIT_RATIO,
          expired,
          dropped,
        },
      };
    },
  };
}

/** A status() figure read while the store closes is reported as none, not thrown. */
function orNothing<T>(read: () => T, none: T): T {
  try {
    return read();
  } catch {
    return none;
  }
}
