/**
 * Holds V8's old-generation growth factor at HEAP_GROWING_PERCENT from the first open on, so a
 * process with Node's default flags stays small under a long write load (issue 16.4).
 *
 * Why: after each full collection V8 sets the next one's trigger at the live old generation times
 * a factor it picks from how cheap its collections have been: up to 4x for a small heap, and a
 * store's are cheap (~10 MiB live). A write load promotes a steady trickle of garbage: most of it
 * is the caller's own, such as the number strings of DynamoDB's N values, which V8's
 * number-to-string cache keeps alive past two scavenges (measured with the sampling heap profiler:
 * ~18 of ~21 MiB promoted over 200k readings of the memory suite's ingest). So the old generation
 * filled to ~4x its live size before each full collection: on the 1 M-item ingest the default
 * peaked at 54.7 MiB of anonymous memory and held writes ('log', logWritesPerCommit 400) at 69.7,
 * against 38.6 and 55.3 with a factor of 1.5, for 10 full collections instead of 8 (~6 ms more in
 * all; docs/decisions/014-old-generation-growth-limit.md).
 *
 * How: V8 reads `--heap-growing-percent` each time it computes the next trigger
 * (Heap::RecomputeLimits), so a value set after start applies from the next full collection on.
 * Process-wide and for the process's lifetime: it is a flag.
 *
 * Not done when the process was started with a flag that decides the same (execArgv or
 * NODE_OPTIONS): the user's choice stands. `limitOldGenerationGrowth: false` in open() leaves V8 alone.
 */
import { setFlagsFromString } from 'node:v8';

/** Each full collection's trigger at 1.5x the live old generation (V8: 1.1x to 4x). */
export const HEAP_GROWING_PERCENT = 50;

const GROWTH_FLAG = /^--(heap[-_]growing[-_]percent|predictable[-_]gc[-_]schedule|optimize[-_]for[-_]size)\b/;

let limited = false;

/** Sets the factor unless the process was given a growth flag; whether it is set. Idempotent. */
export function limitOldGenerationGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env['NODE_OPTIONS'] ?? ''): boolean {
  if (limited) return true;
  if (oldGenerationConfigured(execArgv, nodeOptions)) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  limited = true;
  return true;
}

/** Whether node was started with a flag that sets how V8 grows its old generation. */
export function oldGenerationConfigured(execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => GROWTH_FLAG.test(arg));
}
