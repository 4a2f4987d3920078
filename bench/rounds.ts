/**
 * Rounds of the contenders suite: every workload is timed several times per contender, the rounds
 * interleaved across the contenders, and reported as the median round with the rounds' spread.
 *
 * On a shared 2-core machine one timed run moves a lot (SQLite's scan read 205k-375k items/s
 * between reruns): a burst of load from other processes lands on one contender's run and becomes
 * its figure. Interleaving puts the rounds of all contenders in the same stretch of time; the
 * median drops a round that a burst landed in. The order rotates by one each round (round r starts
 * with contender r mod n), so with a number of rounds that is a multiple of the contenders, each
 * contender runs in each position equally often: no contender always runs right after the same
 * other one, or first after a step change.
 */
import { median } from './suite.js';
import type { Measurement, RoundContext, RoundFigures } from './workloads.js';

/** Rounds per workload when --rounds is not given: 3 keeps the full suite near 2 minutes. */
export const DEFAULT_ROUNDS = 3;

/** Indexes into `count` contenders in the order they run in round `round` (from 0). */
export function rotation(count: number, round: number): number[] {
  return Array.from({ length: count }, (_, k) => (k + round) % count);
}

/**
 * One measurement from a contender's rounds (in round order), each with what the parent saw
 * around it: the median round's value, the rounds' sums of count, ms, items and written bytes (block bytes only when every round has them),
 * and every round's figures.
 */
export function medianOfRounds(measured: readonly (RoundContext & { measurement: Measurement })[]): Measurement {
  const rounds = measured.map((x) => x.measurement);
  const first = rounds[0];
  if (!first) throw new Error('medianOfRounds: no rounds');
  const sum = (f: (m: Measurement) => number | undefined) => rounds.reduce((total, m) => total + (f(m) ?? NaN), 0);
  const figures: RoundFigures[] = measured.map(({ measurement: { workload: _w, unit: _u, rounds: _r, ...m }, ...context }) => ({ ...m, ...context }));
  return {
    workload: first.workload,
    unit: first.unit,
    count: sum((m) => m.count),
    ms: sum((m) => m.ms),
    value: median(rounds.map((m) => m.value)),
    items: sum((m) => m.items),
    ...(first.deviceBytes !== undefined ? { deviceBytes: sum((m) => m.deviceBytes) } : {}),
    ...(rounds.every((m) => m.blockBytes !== undefined) ? { blockBytes: sum((m) => m.blockBytes) } : {}),
    rounds: figures,
  };
}

/** The rounds' lowest and highest value; undefined for a single round or a figure without rounds. */
export function spread(m: Measurement | undefined): { min: number; max: number } | undefined {
  if (!m?.rounds || m.rounds.length < 2) return undefined;
  const values = m.rounds.map((r) => r.value);
  return { min: Math.min(...values), max: Math.max(...values) };
}

/** ` ±N%`: half the rounds' range as a percentage of the median; empty without rounds. */
export function spreadNote(m: Measurement | undefined): string {
  const s = spread(m);
  if (!s || !m || !(m.value > 0)) return '';
  return ` ±${Math.round((50 * (s.max - s.min)) / m.value)}%`;
}
