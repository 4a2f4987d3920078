/**
 * Time-bounded fuzzing: draw inputs from a fast-check arbitrary in batches until the budget is
 * spent, counting them, and a forced-GC heap reading to bound memory growth over the run.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after a full collection. */
export function settledHeapBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Env override for the per-target fuzz budget (ms). */
export function budgetMs(fallback: number): number {
  const fromEnv = Number(process.env.FUZZ_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : fallback;
}

export async function fuzzFor<T>(arb: fc.Arbitrary<T>, ms: number, seed: number, check: (input: T) => void | Promise<void>): Promise<number> {
  const deadline = performance.now() + ms;
  let tried = 0;
  let batch = 0;
  while (performance.now() < deadline) {
    for (const input of fc.sample(arb, { numRuns: 50, seed: seed + batch++ })) {
      await check(input);
      tried += 1;
    }
  }
  return tried;
}
