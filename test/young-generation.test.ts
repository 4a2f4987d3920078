/**
 * young-generation.ts: which node flags count as the user's young-generation choice, and that the
 * hold keeps new space from growing in a fresh process (Node's defaults) where it would grow.
 */
import { describe, expect, it } from 'vitest';
import { inFreshNode } from './fresh-node.js';
import { growthFactorFor, holdYoungGeneration, youngGenerationConfigured } from '../src/young-generation.js';

/**
 * Script lines for the shrink tests: the semi-space's capacity (what growth multiplies, not its
 * committed size), and a load that every 1,000 objects does what a store does before each txn
 * (Store.beforeTxn) when given that hook.
 */
const SHRINK_HELPERS = `const newSpace = () => {
         const s = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
         return s.space_used_size + s.space_available_size;
       };
       const load = (n, beforeTxn = () => {}) => {
         let keep = [];
         for (let i = 0; i < n; i++) {
           keep.push({ i, s: String(i), a: [i] });
           if (keep.length > 5000) keep = [];
           if (i % 1000 === 0) beforeTxn();
         }
       };`;

/** Runs `script` (importing ./young-generation.mjs) in a fresh node once per mode (fresh-node.ts). */
function inFreshProcess<T>(script: string, modes: readonly string[]): Record<string, T> {
  return inFreshNode<T>('young-generation', script, modes);
}

describe('youngGenerationConfigured', () => {
  it('sees semi-space flags in execArgv and NODE_OPTIONS, spelled with - or _', () => {
    expect(youngGenerationConfigured(['--max-semi-space-size=2'], '')).toBe(true);
    expect(youngGenerationConfigured([], '--enable-source-maps --min_semi_space_size=4')).toBe(true);
    expect(youngGenerationConfigured(['--semi-space-growth-factor=4'], '')).toBe(true);
    expect(youngGenerationConfigured([], '--max-heap-size=256')).toBe(true);
  });

  it('ignores other flags', () => {
    expect(youngGenerationConfigured(['--enable-source-maps', '--max-old-space-size=256'], '')).toBe(false);
    expect(youngGenerationConfigured([], '')).toBe(false);
  });
});

describe('holdYoungGeneration', () => {
  it('leaves V8 alone when node was given a semi-space flag', () => {
    expect(holdYoungGeneration(['--max-semi-space-size=2'], '')).toBe(false);
  });

  it('keeps new space at its start size through a write load that grows it under Node defaults, and at the floor once it reads a page of items', () => {
    // A fresh node (its own V8 heap), running the module compiled as the package ships it.
    const runs = inFreshProcess<{ before: number; after: number; floor: number }>(
      `import { getHeapSpaceStatistics } from 'node:v8';
       import { HELD_FLOOR_BYTES, holdYoungGeneration, watchYoungGeneration } from './young-generation.mjs';
       ${SHRINK_HELPERS}
       // Garbage only, so a scavenge has run (its from-space committed) and nothing survived.
       const junk = [];
       for (let i = 0; i < 200_000; i++) if (junk.push({ i }) > 8) junk.length = 0;
       const before = newSpace();
       const mode = process.argv[2];
       if (mode !== 'free') holdYoungGeneration([], '');
       // ~5,000 objects always alive: ~0.5 MB survives each scavenge, enough to grow new space.
       const kind = mode === 'pages' ? 'range-read' : 'write';
       load(4_000_000, mode === 'free' ? undefined : () => watchYoungGeneration(kind));
       console.log(JSON.stringify({ before, after: newSpace(), floor: HELD_FLOOR_BYTES }));`,
      ['free', 'writes', 'pages'],
    );
    const free = runs['free']!;
    expect(free.after).toBeGreaterThan(free.floor); // the load grows it past the floor
    const writes = runs['writes']!;
    expect(writes.before).toBeLessThan(writes.floor * 0.97); // a fresh process starts below the floor
    expect(writes.after).toBe(writes.before); // held where it was
    const reads = runs['pages']!;
    expect(reads.after).toBeGreaterThanOrEqual(reads.floor * 0.97); // grown to the floor
    expect(reads.after).toBeLessThanOrEqual(reads.floor); // and no further
  }, 30_000);

  it('holds V8\'s 16 MiB maximum from the first large page on (a Scan without a Limit), and the floor under smaller pages', () => {
    const runs = inFreshProcess<{ after: number; floor: number; large: number }>(
      `import { getHeapSpaceStatistics } from 'node:v8';
       import { HELD_FLOOR_BYTES, LARGE_PAGE_BYTES, LARGE_PAGE_FLOOR_BYTES, holdYoungGeneration, sawRangePage, watchYoungGeneration } from './young-generation.mjs';
       ${SHRINK_HELPERS}
       holdYoungGeneration([], '');
       const mode = process.argv[2];
       let pages = 0;
       load(8_000_000, () => {
         watchYoungGeneration('range-read');
         // A page of items after each txn: all just below the large-page size, or one large one.
         sawRangePage(mode === 'large' && ++pages === 10 ? LARGE_PAGE_BYTES : LARGE_PAGE_BYTES - 1);
       });
       console.log(JSON.stringify({ after: newSpace(), floor: HELD_FLOOR_BYTES, large: LARGE_PAGE_FLOOR_BYTES }));`,
      ['small', 'large'],
    );
    const small = runs['small']!;
    expect(small.after).toBeGreaterThanOrEqual(small.floor * 0.97);
    expect(small.after).toBeLessThanOrEqual(small.floor);
    const large = runs['large']!;
    expect(large.after).toBeGreaterThanOrEqual(large.large * 0.97);
    expect(large.after).toBeLessThanOrEqual(large.large);
  }, 60_000);

  it('grows new space back to the held size after V8 shrank it, and no further when watched before each txn', () => {
    const runs = inFreshProcess<{ heldAt: number; shrunk: number; after: number }>(
      `import { getHeapSnapshot, getHeapSpaceStatistics } from 'node:v8';
       import { holdYoungGeneration, keepHeldSize, watchYoungGeneration } from './young-generation.mjs';
       ${SHRINK_HELPERS}
       load(150_000); // grown past its start size under Node's defaults, not to its maximum
       holdYoungGeneration([], '');
       const heldAt = newSpace();
       // A heap snapshot collects with V8's reduce-memory flag, as a GC after a quiet spell does: it shrinks new space.
       for await (const _ of getHeapSnapshot());
       const shrunk = newSpace();
       const watch = process.argv[2] !== 'no-watch';
       if (watch) keepHeldSize(); // what the hold's timer does once a second
       // Long enough to grow past the held size when nothing stops it ('timer-only').
       load(8_000_000, process.argv[2] === 'watch' ? watchYoungGeneration : undefined);
       console.log(JSON.stringify({ heldAt, shrunk, after: newSpace() }));`,
      ['no-watch', 'timer-only', 'watch'],
    );
    const stuck = runs['no-watch']!;
    expect(stuck.shrunk).toBeLessThan(stuck.heldAt); // V8 did shrink it
    expect(stuck.after).toBeLessThan(stuck.heldAt); // and, with growth stopped, it stays small
    const timerOnly = runs['timer-only']!;
    expect(timerOnly.after).toBeGreaterThan(timerOnly.heldAt); // a loop the timer never interrupts grows on
    const watched = runs['watch']!;
    expect(watched.shrunk).toBeLessThan(watched.heldAt);
    expect(watched.after).toBe(watched.heldAt);
  }, 30_000);
});

describe('the hold after a quiet spell', () => {
  it('looks at new space before the txns that follow two timer ticks without one, so a shrink in the next synchronous step is undone', () => {
    const runs = inFreshProcess<{ heldAt: number; shrunk: number; after: number }>(
      `import { getHeapSnapshot, getHeapSpaceStatistics } from 'node:v8';
       import { setTimeout as sleep } from 'node:timers/promises';
       import { holdYoungGeneration, watchYoungGeneration } from './young-generation.mjs';
       ${SHRINK_HELPERS}
       load(150_000, watchYoungGeneration);
       holdYoungGeneration([], '');
       const heldAt = newSpace();
       if (process.argv[2] === 'quiet') await sleep(3300); // two whole ticks of the hold's timer without a txn
       else { load(20_000, watchYoungGeneration); await sleep(20); }
       // The shrink, then the synchronous step, with no timer tick in between.
       for await (const _ of getHeapSnapshot());
       const shrunk = newSpace();
       load(3_000_000, watchYoungGeneration);
       console.log(JSON.stringify({ heldAt, shrunk, after: newSpace() }));`,
      ['busy', 'quiet'],
    );
    const busy = runs['busy']!;
    expect(busy.shrunk).toBeLessThan(busy.heldAt);
    expect(busy.after).toBeLessThan(busy.heldAt); // not watched: the step runs small
    const quiet = runs['quiet']!;
    expect(quiet.shrunk).toBeLessThan(quiet.heldAt);
    expect(quiet.after).toBeGreaterThanOrEqual(quiet.heldAt * 0.97);
    expect(quiet.after).toBeLessThan(quiet.heldAt * 2);
  }, 30_000);
});

describe('growthFactorFor', () => {
  it('is the power of two that takes new space back to the held size in one step, capped', () => {
    expect(growthFactorFor(1 << 20, 4 << 20)).toBe(4);
    expect(growthFactorFor(1 << 20, 3 << 20)).toBe(4);
    expect(growthFactorFor(1 << 20, 2 << 20)).toBe(2);
    expect(growthFactorFor(2 << 20, 4 << 20)).toBe(2);
    expect(growthFactorFor(1 << 20, 64 << 20)).toBe(16);
    expect(growthFactorFor(1_030_000, 4_120_000)).toBe(4); // readings a few pages off powers of two
    expect(growthFactorFor(1_010_000, 4_130_000)).toBe(4);
  });

  it('takes a shrink that is not a power of two apart back above the held size, never below it', () => {
    expect(growthFactorFor(1.5 * 2 ** 20, 2 * 2 ** 20)).toBe(2); // 1.5 -> 3 MiB, not stuck at 1.5
    expect(growthFactorFor(1.5 * 2 ** 20, 4 * 2 ** 20)).toBe(4); // 1.5 -> 6 MiB
  });

  it('is 1 (growth stopped) at or above the held size', () => {
    expect(growthFactorFor(4 << 20, 4 << 20)).toBe(1);
    expect(growthFactorFor(8 << 20, 4 << 20)).toBe(1);
    expect(growthFactorFor(0, 4 << 20)).toBe(1);
  });
});
