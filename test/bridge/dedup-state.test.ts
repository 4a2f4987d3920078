import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDurable, applyBase, EMPTY_DEDUP_STATE, isBootAhead, isSettled, startBoot, type DedupState } from '../../src/bridge/dedup-state.js';
import { MAX_BRIDGE_DURABLE_SEQS } from '../../src/model/limits.js';

type Op = { kind: 'base'; base: number } | { kind: 'durable'; seqs: number[] };

/** Brute force: the set of settled seqs, and the ack = highest contiguous settled seq. */
class Oracle {
  maxBase = 1;
  durable = new Set<number>();
  settledSeq(s: number): boolean {
    return s < this.maxBase || this.durable.has(s);
  }
  ack(): number {
    let k = 0;
    while (this.settledSeq(k + 1)) k++;
    return k;
  }
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('base' as const), base: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant('durable' as const), seqs: fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 8 }) }),
);

describe('dedup state', () => {
  it('matches a brute-force model: settled is the highest contiguous settled seq, isSettled is exact', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let state: DedupState = EMPTY_DEDUP_STATE;
        const oracle = new Oracle();
        for (const o of ops) {
          if (o.kind === 'base') {
            state = applyBase(state, o.base);
            oracle.maxBase = Math.max(oracle.maxBase, o.base);
          } else {
            state = addDurable(state, o.seqs);
            for (const s of o.seqs) oracle.durable.add(s);
          }
          expect(state.settled).toBe(oracle.ack());
          for (let s = 1; s <= 62; s++) expect(isSettled(state, s)).toBe(oracle.settledSeq(s));
          // The stored form is minimal: sorted, above settled + 1, no duplicates.
          for (let i = 0; i < state.durable.length; i++) {
            expect(state.durable[i]!).toBeGreaterThan(state.settled + 1);
            if (i > 0) expect(state.durable[i]!).toBeGreaterThan(state.durable[i - 1]!);
          }
        }
      }),
    );
  });

  it('acks out-of-order seqs only once the gap below them is filled', () => {
    let s = addDurable(EMPTY_DEDUP_STATE, [2, 3, 5]);
    expect(s).toEqual({ boot: 0, settled: 0, durable: [2, 3, 5] });
    s = addDurable(s, [1]);
    expect(s).toEqual({ boot: 0, settled: 3, durable: [5] });
    expect(applyBase(s, 5)).toEqual({ boot: 0, settled: 5, durable: [] });
  });

  it('speaks of one boot: a new boot starts with nothing settled, and keeps its boot through every step', () => {
    const old = addDurable(startBoot(3), [1, 2, 3]);
    expect(isSettled(old, 2)).toBe(true);
    const fresh = startBoot(4);
    expect(fresh).toEqual({ boot: 4, settled: 0, durable: [] });
    expect(isSettled(fresh, 1)).toBe(false); // seq 1 of the new boot is new, not a duplicate
    expect(applyBase(addDurable(fresh, [1, 3]), 2)).toEqual({ boot: 4, settled: 1, durable: [3] });
  });

  it('keeps at most MAX_BRIDGE_DURABLE_SEQS durable seqs, forgetting the oldest', () => {
    const many = Array.from({ length: MAX_BRIDGE_DURABLE_SEQS + 10 }, (_, i) => i + 2);
    const s = addDurable(EMPTY_DEDUP_STATE, many);
    expect(s.settled).toBe(0);
    expect(s.durable).toHaveLength(MAX_BRIDGE_DURABLE_SEQS);
    expect(isSettled(s, 2)).toBe(false); // forgotten: a resend is rewritten (same key, same item)
    expect(isSettled(s, MAX_BRIDGE_DURABLE_SEQS + 11)).toBe(true);
  });
});

describe('isBootAhead', () => {
  it('is past now plus the bound, the boot id read as seconds; a boot counter never is', () => {
    const now = 1_800_000_000_000;
    expect(isBootAhead(1_800_000_000 + 86_400, now, 86_400)).toBe(false);
    expect(isBootAhead(1_800_000_000 + 86_401, now, 86_400)).toBe(true);
    expect(isBootAhead(7, now, 86_400)).toBe(false); // a boot counter
  });

});
