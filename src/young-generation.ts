/**
 * Keeps V8's young generation at the size it has when a store opens (at least a 4 MiB semi-space
 * once the store reads a page of items, V8's maximum once it reads a 1 MB page: "The floor" and
 * "The large-page floor" below), so an embedded process with Node's default flags stays small
 * under a long write load (issue 16.4).
 *
 * Why: V8 doubles the semi-spaces (up to 16 MiB each, 2 committed at a time) whenever the bytes
 * that survived scavenges since the last growth pass the current capacity. The count is
 * cumulative: a write load always has a batch in flight when a scavenge comes (~50 KB survive each
 * one in bench/memory.ts, the caller's own items included), so any long ingest grows the young
 * generation to its maximum, whatever the write path keeps alive. The maximum costs ~24 MiB of
 * anonymous RSS more than 2 MiB semi-spaces (bench/young-gen-probe.ts).
 *
 * How: `--max-semi-space-size` is read only when the process starts, but V8 reads
 * `--semi-space-growth-factor` each time it grows new space (SemiSpaceNewSpace::Grow), and a value
 * of 1 set after start makes a growth keep the capacity (V8 raises a start-up value below 2 to 2,
 * so this only works from here). Process-wide and for the process's lifetime: it is a flag.
 *
 * Growing back to the held size: V8 shrinks new space in a memory-reducing GC, which a quiet
 * spell brings (measured: a 2 MiB semi-space down to 1 MiB about 7 s into an idle period of an
 * open store, in a mark-compact V8 started for external memory; bench rounds saw 4 -> 1 MiB).
 * With growth stopped it would stay that small for good, and a Scan then costs ~1.5-2x the CPU
 * (a page of 1,000 items no longer fits in the young generation, so it is copied and promoted).
 * So the hold looks at new space once a second (an unref'd timer) and, while it is below the held
 * size, lets one growth step take it back there. A synchronous loop gives the timer no turn, and
 * V8 would then grow on past the held size (seen: a 1 MiB semi-space to V8's 16 MiB maximum over
 * three Scans after an idle spell), so while growth is allowed the store looks again before its
 * txns, at most once a millisecond (watchYoungGeneration, Store.beforeTxn: a comparison when
 * held, ~2 µs of heap statistics per look) and stops growth once new space is back at the held
 * size. The shrink itself often comes with the first GC after the pause, in the middle of the
 * next synchronous step, where the timer cannot see it (seen: a Scan after a 6 s pause ran its
 * whole pass at 1.25 MiB, ~1.6x the CPU); so after two timer ticks without a txn the store looks
 * before every txn of the next WATCH_AFTER_IDLE_TXNS too.
 *
 * The floor: from the first Query or Scan page on (Store.read's 'range-read'), the hold keeps at
 * least a 4 MiB semi-space (8 MiB of new space committed), growing it there when it is smaller
 * (importing the bundled package leaves a fresh process at 1-2 MiB). A Scan page of 1,000 sensor
 * readings is ~2-3 MiB of decoded objects: with a 2 MiB semi-space they are copied and promoted,
 * old space churns and the bench's Scan ran 273k items/s after its reads (0.86x better-sqlite3);
 * at 4 MiB it ran 605k (1.84x), and the Query columns gained 10-20% (`--suite contenders --only
 * get,latest,window,scan --rounds 3`, both on one quiet machine). It costs ~4 MiB of resident
 * memory (a 1 M-item ingest with it peaked at 57.9-60.4 MiB, 51-55 without), which a process
 * that only writes, the logger the memory target is about, does not need: writes and point reads
 * leave the held size as it was at open (every request, writes included, reads the catalog's
 * generation in a read txn first, so any read would not do).
 *
 * The large-page floor: a page without a Limit (DynamoDB's 1 MB, ~5,000 sensor readings, ~10 MiB
 * of decoded objects) does not fit a 4 MiB semi-space, and such Scans read at about half the speed
 * they reach with V8's maximum (docs/decisions/015-young-generation-hold.md). So from the first
 * Query or Scan page of at least LARGE_PAGE_BYTES of items on (sawRangePage, told by the ops
 * through EngineContext.pageRead), the hold keeps V8's default maximum, a 16 MiB semi-space (8 MiB
 * on 32-bit): ~28 MiB more anonymous memory (bench/scan-page-probe.ts: 38 -> 66 MiB, 63-64 MiB
 * without the hold), paid only by a process that reads such pages.
 *
 * Not done when the process was started with any semi-space flag (execArgv or NODE_OPTIONS: the
 * CLI's --max-semi-space-size=2, a user's tuning): their choice stands. `limitYoungGeneration:
 * false` in open() leaves V8 alone.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import type { TxnKind } from './storage/store.js';

const SEMI_SPACE_FLAG = /^--(max|min)[-_]semi[-_]space[-_]size\b|^--semi[-_]space[-_]growth[-_]factor\b|^--max[-_]heap[-_]size\b/;

/** How often the hold looks at new space (see "Growing back" above). */
const WATCH_INTERVAL_MS = 1000;
/** V8's own cap is a few doublings; a larger factor would only be clamped. */
const MAX_GROWTH_FACTOR = 16;
/** Timer ticks without a txn that count as a quiet spell (see "Growing back"). */
const IDLE_TICKS = 2;
/** Txns after a quiet spell that look at new space before they begin. */
const WATCH_AFTER_IDLE_TXNS = 500;
/**
 * The smallest semi-space held (see "The floor" above): V8 reports a 4 MiB semi-space a few pages
 * short, which growthFactorFor counts as reached.
 */
export const HELD_FLOOR_BYTES = 4 * 1024 * 1024;
/**
 * Items (DynamoDB item size) in one Query or Scan page from which the page's decoded objects
 * outgrow HELD_FLOOR_BYTES: a page of 1,000 sensor readings is ~0.2 MB and fits, a 1 MB page does not.
 */
export const LARGE_PAGE_BYTES = 512 * 1024;
/**
 * The semi-space held after a large page (see "The large-page floor"): V8's default maximum, 8 MiB
 * per pointer-size word of 4 bytes (16 MiB on 64-bit, 8 MiB on 32-bit Raspberry Pi OS), which no
 * growth passes.
 */
export const LARGE_PAGE_FLOOR_BYTES = (process.arch === 'arm' || process.arch === 'ia32' ? 8 : 16) * 1024 * 1024;

let held = false;
/** New space's size when the hold began: what it is kept at. */
let heldBytes = 0;
/** The growth factor last set. */
let growthFactor = 1;
/** Txns begun since the timer's last tick, and ticks in a row that saw none. */
let txnsSinceTick = 0;
let idleTicks = 0;
/** Txns still to look at new space before they begin, after a quiet spell. */
let watchedTxns = 0;
/** Date.now() of the last look while growth was allowed. */
let lastLookMs = 0;

/**
 * Holds the young generation at its size at open (at least HELD_FLOOR_BYTES after the first range
 * read: watchYoungGeneration), unless the process was given young-generation flags. Idempotent.
 */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env['NODE_OPTIONS'] ?? ''): boolean {
  if (held) return true;
  if (youngGenerationConfigured(execArgv, nodeOptions)) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  growthFactor = 1;
  heldBytes = newSpaceBytes();
  setInterval(tick, WATCH_INTERVAL_MS).unref();
  held = true;
  return true;
}

/**
 * The smallest power-of-two growth factor that brings new space of `size` bytes back to at least
 * `heldSize` in one growth step, or 1 at or above it. V8 may shrink to a size that is not a power
 * of two apart from the held one (seen: 1.23 MiB under a 1.97 MiB hold), so the step can overshoot by
 * less than 2x; readings a few pages short of a power of two (0.98 vs 3.93 MiB) count as exact.
 */
export function growthFactorFor(size: number, heldSize: number): number {
  if (size <= 0 || size >= heldSize * 0.97) return 1;
  const steps = Math.ceil(Math.log2(heldSize / size) - 0.05);
  return Math.min(MAX_GROWTH_FACTOR, 2 ** Math.max(1, steps));
}

/** The hold's timer: looks at new space, and counts quiet spells. */
function tick(): void {
  idleTicks = txnsSinceTick === 0 ? idleTicks + 1 : 0;
  txnsSinceTick = 0;
  if (idleTicks >= IDLE_TICKS) watchedTxns = WATCH_AFTER_IDLE_TXNS;
  keepHeldSize();
}

/**
 * Before a store txn (Store.beforeTxn): raises the held size to the floor at the first range read
 * (a Query or Scan page); while new space may grow back, or may shrink (the first txns after a
 * quiet spell), looks at it and stops growth at the held size.
 */
export function watchYoungGeneration(kind: TxnKind = 'write'): void {
  txnsSinceTick += 1;
  if (kind === 'range-read' && heldBytes < HELD_FLOOR_BYTES && held) {
    heldBytes = HELD_FLOOR_BYTES;
    keepHeldSize();
  }
  if (watchedTxns > 0) {
    watchedTxns -= 1;
    keepHeldSize();
  } else if (growthFactor !== 1) {
    // Growth may be pending for long (a read load lets few bytes survive, so V8 grows late):
    // one look per millisecond keeps that from costing every txn ~2 µs, and V8 cannot grow
    // twice in a millisecond (a second growth needs the new capacity's worth of survivors).
    const now = Date.now();
    if (now === lastLookMs) return;
    lastLookMs = now;
    keepHeldSize();
  }
}

/**
 * After a Query or Scan page of `bytes` of items (EngineContext.pageRead): from the first large
 * one on, holds the large-page floor (see above).
 */
export function sawRangePage(bytes: number): void {
  if (!held || bytes < LARGE_PAGE_BYTES || heldBytes >= LARGE_PAGE_FLOOR_BYTES) return;
  heldBytes = LARGE_PAGE_FLOOR_BYTES;
  keepHeldSize();
}

/** Sets the growth factor new space's current size calls for (see "Growing back"); the timer's work. */
export function keepHeldSize(): void {
  if (!held) return;
  const factor = growthFactorFor(newSpaceBytes(), heldBytes);
  if (factor === growthFactor) return;
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  growthFactor = factor;
}

/**
 * The semi-space's capacity (used + available bytes), which growth multiplies. Not space_size:
 * that counts committed memory, both semi-spaces normally but one after a shrink uncommitted the
 * other, so it would read a 4 -> 1 MiB shrink as 8 -> 1.
 */
function newSpaceBytes(): number {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return space === undefined ? 0 : space.space_used_size + space.space_available_size;
}

/** Whether node was started with a flag that sizes the young generation. */
export function youngGenerationConfigured(execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((f) => SEMI_SPACE_FLAG.test(f));
}
