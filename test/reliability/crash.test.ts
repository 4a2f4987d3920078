/**
 * Crash safety (issue 9 part 1): a worker process runs puts, updates (moving LSI and GSI keys),
 * deletes, BatchWriteItem and conditional TransactWriteItems on a table with an LSI, a GSI and a
 * change log, and is SIGKILLed at random moments; after each kill the store is reopened and
 * checked (harness/crash-check.ts). Also proves the checker can fail: a lost acknowledged write
 * and a half-applied transaction are caught.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import type { OperationName } from '../../src/ops/operations.js';
import { checkAfterKill, type Acks, type Replay } from './harness/crash-check.js';
import { runCrashCycles } from './harness/crash-runner.js';
import { MAX_OPS_PER_CYCLE, TABLE, Workload, createTableRequest, toRequest, type Model, type Op } from './harness/workload.js';

const CYCLES = Number(process.env.CRASH_CYCLES ?? 100);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-crash-'));
  dirs.push(dir);
  return join(dir, 'db');
}

describe('SIGKILL at random moments', () => {
  it(`${CYCLES} kill cycles: every acknowledged write survives, nothing partial, indexes and change log agree`, async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
    const figures = await runCrashCycles({ path: tempPath(), cycles: CYCLES, seed });
    console.log(
      `crash: seed ${seed}, ${figures.cycles} cycles, ${figures.ackedWrites} acknowledged writes checked ` +
        `(${figures.ackedOps} acknowledged ops, ${figures.acknowledgedTransactions} transactions), ` +
        `${figures.inFlightApplied} in-flight ops found applied, ${figures.streamRecordsReplayed} change records replayed, ` +
        `${figures.violations.length} violations, ${figures.ms} ms`,
    );
    expect(figures.violations).toEqual([]);
    expect(figures.cycles).toBe(CYCLES);
    expect(figures.ackedWrites).toBeGreaterThan(0);
    expect(figures.streamRecordsReplayed).toBeGreaterThan(0);
  }, 240_000);
});

/** Runs cycle 1's ops in-process up to (not including) the first op that satisfies `stop`. */
function runUntil(path: string, seed: number, stop: (op: Op, ok: boolean) => boolean, maxOps = Infinity): { acks: Acks; op?: Op; model: Model } {
  const db = open({ path });
  db.createTable(createTableRequest());
  const model: Model = new Map();
  const workload = new Workload(seed, 1);
  const acks: Acks = { fingerprints: [], outcomes: [] };
  try {
    for (;;) {
      if (acks.fingerprints.length >= maxOps) return { acks, model };
      const { op, ok, fingerprint } = workload.next(model);
      if (stop(op, ok)) return { acks, op, model };
      const { operation, request, rejection } = toRequest(op);
      let threw: string | undefined;
      try {
        db.execute(operation as OperationName, request);
      } catch (error) {
        threw = (error as Error).name;
        if (ok) throw error;
      }
      if (!ok && threw !== rejection) throw new Error(`op ${acks.fingerprints.length}: expected ${rejection}, got ${threw ?? 'success'}`);
      acks.fingerprints.push(fingerprint);
      acks.outcomes.push(ok);
    }
  } finally {
    db.close();
  }
}

const freshReplay = (): Replay => ({ next: new Map(), items: new Map() });

describe('the workload', () => {
  it('runs a whole cycle in-process exactly as the model predicts (outcomes, table, indexes, change log)', () => {
    const path = tempPath();
    const { acks } = runUntil(path, 3, () => false, MAX_OPS_PER_CYCLE - 1);
    expect(acks.outcomes.filter((ok) => !ok).length).toBeGreaterThan(0); // some conditions fail on purpose
    expect(checkAfterKill(path, 3, 1, new Map(), acks, freshReplay()).violations).toEqual([]);
  });
});

describe('the checker fails when it should', () => {
  it('passes an honest run, then reports an acknowledged write that went missing', () => {
    const path = tempPath();
    let puts = 0;
    const { acks, model } = runUntil(path, 7, (op) => op.kind === 'put' && ++puts > 20);
    expect(checkAfterKill(path, 7, 1, new Map(), acks, freshReplay()).violations).toEqual([]);

    const lost = [...model.values()][0]!;
    const db = open({ path });
    db.deleteItem({ TableName: TABLE, Key: { pk: lost.pk!, sk: lost.sk! } });
    db.close();
    const { violations } = checkAfterKill(path, 7, 1, new Map(), acks, freshReplay());
    expect(violations.join('\n')).toMatch(/matches no state at or after the \d+ acknowledged ops/);
  });

  it('reports a transaction with only some of its writes in the store', () => {
    const path = tempPath();
    const { acks, op } = runUntil(path, 11, (o, ok) => ok && o.kind === 'txn' && o.puts.length >= 2);
    if (op?.kind !== 'txn') throw new Error('unreachable');
    // Apply the transaction's first put alone, as a crash mid-transaction would leave it.
    const db = open({ path });
    db.putItem({ TableName: TABLE, Item: op.puts[0]! });
    db.close();
    const { violations } = checkAfterKill(path, 11, 1, new Map(), acks, freshReplay());
    expect(violations.join('\n')).toMatch(/partial txn: 1 of its writes are in the store, \d+ are not/);
  });
});
