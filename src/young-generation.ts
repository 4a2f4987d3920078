/**
 * Keeps V8's young generation at the size it has when a store opens, so an embedded process with
 * Node's default flags stays small under a long write load (issue 16.4).
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
 * Not done when the process was started with any semi-space flag (execArgv or NODE_OPTIONS: the
 * CLI's --max-semi-space-size=2, a user's tuning): their choice stands. `limitYoungGeneration:
 * false` in open() leaves V8 alone.
 */
import { setFlagsFromString } from 'node:v8';

const SEMI_SPACE_FLAG = /^--(max|min)[-_]semi[-_]space[-_]size\b|^--semi[-_]space[-_]growth[-_]factor\b|^--max[-_]heap[-_]size\b/;

let held = false;

/** Stops the young generation from growing, unless the process was given young-generation flags. Idempotent. */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env['NODE_OPTIONS'] ?? ''): boolean {
  if (held) return true;
  if (youngGenerationConfigured(execArgv, nodeOptions)) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  held = true;
  return true;
}

/** Whether node was started with a flag that sizes the young generation. */
export function youngGenerationConfigured(execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((f) => SEMI_SPACE_FLAG.test(f));
}
