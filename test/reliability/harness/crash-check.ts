/**
 * What the parent checks after each kill, on the reopened store:
 * - the table equals the model after exactly k ops of the cycle, for some k >= the number of
 *   acknowledged ops: every acknowledged write is there, in order, and at most the ops in flight
 *   at the kill were added (each whole or not at all);
 * - when no such state matches and the first unacknowledged op is a transaction or batch, the
 *   failure also says whether that op is in the store only in part ("partial");
 * - verify() finds every index equal to its recomputation;
 * - DescribeTable's ItemCount equals the number of items a Scan returns;
 * - the Scratch table exists exactly when the model says so, with the model's items, and once
 *   deleted none of its databases is left (a recovery that undid a drop would bring them back);
 * - the change log continues gap-free from where the last check stopped (no GAP record, no
 *   skipped sequence number) and replaying it gives the table's contents.
 * With a loss window of 1 ('relaxed' durability after a power cut) the table may instead equal
 * the model just before the last acknowledged op that changed the table (the last commit; a
 * write that changes nothing, such as deleting a missing item, commits nothing): that write lost
 * whole, as documented; anything older lost is a violation.
 * With `mustHave` below the acknowledged ops ('interval' durability after a power cut: the writes
 * of the last interval may be lost) the table may equal the model after any k >= mustHave ops:
 * only the acknowledged ops from mustHave on may be lost, and only as a suffix.
 */
import { open } from '../../../src/edgetable.js';
import { readStore } from './read-table.js';
import { MAX_OPS_PER_CYCLE, SCRATCH_EXISTS, SCRATCH_TABLE, TABLE, Workload, canonical, isScratch, keyString, type Item, type Model, type Op } from './workload.js';

/** The change log replayed so far: next expected sequence number per shard, and the images. */
export type Replay = { next: Map<number, number>; items: Map<string, string> };

/** `times`: when each op was acknowledged (Date.now() in the worker); `journaled`: the power-cut journal's bytes then. */
export type Acks = { fingerprints: number[]; outcomes: boolean[]; times?: number[]; journaled?: number[] };

export type CheckResult = {
  /** The table as found (the next cycle's starting model). */
  model: Model;
  violations: string[];
  /** Acknowledged ops whose effects were confirmed (including acknowledged rejections). */
  ackedOps: number;
  /** Of those, the ones that wrote (expected outcome: success). */
  ackedWrites: number;
  /** Unacknowledged ops found applied (the op in flight at the kill). */
  inFlightApplied: number;
  transactions: number;
  keysCompared: number;
  streamRecords: number;
  /** The last acknowledged write was lost (allowed only with a loss window). */
  lostLastWrite: boolean;
  /** Acknowledged ops lost (allowed only from `mustHave` on). */
  lostAckedOps: number;
};

/**
 * `checkOnOpen`: whether the reopen also walks data.mdb in a child (storage/open-check.ts); a
 * harness reopening hundreds of times samples it instead of paying a process start per reopen.
 */
export function checkAfterKill(path: string, seed: number, cycle: number, start: Model, acks: Acks, replay: Replay, lossWindow = 0, checkOnOpen: 'unclean' | 'always' | 'never' = 'unclean', mustHave = acks.fingerprints.length): CheckResult {
  const violations: string[] = [];
  const result: CheckResult = { model: start, violations, ackedOps: 0, ackedWrites: 0, inFlightApplied: 0, transactions: 0, keysCompared: 0, streamRecords: 0, lostLastWrite: false, lostAckedOps: 0 };
  let db: ReturnType<typeof open>;
  try {
    db = open({ path, checkOnOpen });
  } catch (error) {
    violations.push(`reopen failed: ${(error as Error).message}`);
    return result;
  }
  try {
    const actual = readStore(db);
    result.model = actual;
    checkPrefix(seed, cycle, start, acks, actual, result, lossWindow, mustHave);
    const { Differences } = db.verify();
    if (Differences !== 0) violations.push(`verify() found ${Differences} index differences`);
    const { ItemCount } = db.describeTable({ TableName: TABLE }).Table as { ItemCount: number };
    if (!actual.has(SCRATCH_EXISTS)) {
      const left = db.store.listDatabases(`t/${SCRATCH_TABLE}/`);
      if (left.length > 0) violations.push(`the ${SCRATCH_TABLE} table is gone but ${left.length} of its databases are still there, e.g. ${left[0]}`);
    }
    const crash: Model = new Map([...actual].filter(([k]) => !isScratch(k)));
    if (ItemCount !== crash.size) violations.push(`DescribeTable ItemCount ${ItemCount} != Scan count ${crash.size}`);
    checkChangeLog(db, crash, replay, result);
  } catch (error) {
    // A store that reopens but cannot be read (MDB_CORRUPTED after a cut that lost a flush) is a finding, not a harness failure.
    violations.push(`reading the reopened store failed: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  return result;
}

/** Exported for the checker's own test (test/reliability/crash-check.test.ts). */
export function checkPrefix(seed: number, cycle: number, start: Model, acks: Acks, actual: Model, result: CheckResult, lossWindow: number, mustHave = acks.fingerprints.length): void {
  const { violations } = result;
  const model: Model = new Map(start);
  const workload = new Workload(seed, cycle);
  const acked = acks.fingerprints.length;
  const floor = Math.min(mustHave, acked);
  const lastWrite = lossWindow > 0 ? lastStateChange(seed, cycle, start, acked) : -1;
  if (lastWrite >= 0 && sameTable(replayAcked(seed, cycle, start, lastWrite), actual)) {
    result.lostLastWrite = true;
    for (let i = 0; i < lastWrite; i++) {
      const r = workload.next(model);
      result.ackedOps += 1;
      if (r.ok) result.ackedWrites += 1;
    }
    return;
  }
  const differentOp = (i: number, r: { fingerprint: number; ok: boolean }): boolean => {
    if (r.fingerprint === acks.fingerprints[i] && r.ok === acks.outcomes[i]) return false;
    violations.push(`op ${i}: the worker ran a different op or outcome than the parent regenerated`);
    return true;
  };
  const countAcked = (r: { ok: boolean; op: Op }): void => {
    result.ackedOps += 1;
    if (r.ok) result.ackedWrites += 1;
    if (r.op.kind === 'txn' && r.ok) result.transactions += 1;
  };
  for (let i = 0; i < floor; i++) {
    const r = workload.next(model);
    if (differentOp(i, r)) return;
    countAcked(r);
  }
  const differing = new Set<string>();
  for (const k of new Set([...model.keys(), ...actual.keys()])) {
    result.keysCompared += 1;
    if (canonical(model.get(k)) !== canonical(actual.get(k))) differing.add(k);
  }
  // Ops still in flight at the kill may follow the first unacknowledged one into the store (a
  // db.promises group, or acks the parent had not received yet), and a later one can undo part of
  // it (a delete of a key it put): so the first op's all-or-nothing is judged only when no state
  // after k ops matches, to say what broke.
  let firstInFlight: { op: Op; changed: string[]; previous: Map<string, Item | undefined>; after: Model } | undefined;
  let k = floor;
  while (differing.size > 0 && k < MAX_OPS_PER_CYCLE) {
    const r = workload.next(model);
    if (k < acked) {
      if (differentOp(k, r)) return;
      countAcked(r); // found, if a state at or after k + 1 ops matches
    }
    for (const key of r.changed) {
      if (canonical(model.get(key)) === canonical(actual.get(key))) differing.delete(key);
      else differing.add(key);
    }
    if (k === floor) firstInFlight = { op: r.op, changed: r.changed, previous: r.previous, after: new Map(model) };
    k += 1;
  }
  if (differing.size > 0) {
    if (firstInFlight) checkAllOrNothing(firstInFlight.op, firstInFlight.changed, firstInFlight.previous, firstInFlight.after, actual, violations);
    const key = [...differing][0]!;
    violations.push(
      `cycle ${cycle}: the table matches no state at or after ${floor === acked ? `the ${acked}` : `${floor} of the ${acked}`} acknowledged ops; ${differing.size} keys differ, e.g. ${key}: ` +
        `acknowledged ${short(replayAcked(seed, cycle, start, acked).get(key))}, found ${short(actual.get(key))}`,
    );
    return;
  }
  result.lostAckedOps = Math.max(0, acked - k); // only from mustHave on: the table matched at k >= mustHave
  result.inFlightApplied += Math.max(0, k - acked);
}

/** The in-flight op's keys must all show it or all not (a half-applied batch or transaction). */
function checkAllOrNothing(op: Op, changed: string[], previous: Map<string, Item | undefined>, after: Model, actual: Model, violations: string[]): void {
  if (op.kind !== 'txn' && op.kind !== 'batch') return;
  let applied = 0;
  let missing = 0;
  for (const k of changed) {
    const was = canonical(previous.get(k));
    const now = canonical(after.get(k));
    const found = canonical(actual.get(k));
    if (was === now) continue;
    if (found === now) applied += 1;
    else if (found === was) missing += 1;
  }
  if (applied > 0 && missing > 0) violations.push(`partial ${op.kind}: ${applied} of its writes are in the store, ${missing} are not`);
}

/** Index of the last of the first `acked` ops that changed the table, -1 if none did. */
function lastStateChange(seed: number, cycle: number, start: Model, acked: number): number {
  const model: Model = new Map(start);
  const workload = new Workload(seed, cycle);
  let last = -1;
  for (let i = 0; i < acked; i++) {
    const r = workload.next(model);
    if (r.changed.some((k) => canonical(r.previous.get(k)) !== canonical(model.get(k)))) last = i;
  }
  return last;
}

function sameTable(a: Model, b: Model): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (canonical(v) !== canonical(b.get(k))) return false;
  return true;
}

function replayAcked(seed: number, cycle: number, start: Model, acked: number): Model {
  const model: Model = new Map(start);
  const workload = new Workload(seed, cycle);
  for (let i = 0; i < acked; i++) workload.next(model);
  return model;
}

function short(item: Item | undefined): string {
  return item === undefined ? '(absent)' : `w=${(item.w as { S: string }).S}`;
}

type StreamRecord = { eventName: string; dynamodb: { SequenceNumber: string; Keys?: Item; NewImage?: Item } };

function checkChangeLog(db: ReturnType<typeof open>, actual: Model, replay: Replay, result: CheckResult): void {
  for (const shard of db.listShards(TABLE)) {
    let next = replay.next.get(shard.ShardId) ?? 1;
    for (;;) {
      const { Records } = db.readShard(TABLE, shard.ShardId, { fromSeq: next, limit: 1000 }) as { Records: StreamRecord[] };
      if (Records.length === 0) break;
      for (const r of Records) {
        const seq = Number(r.dynamodb.SequenceNumber);
        if (seq !== next) result.violations.push(`shard ${shard.ShardId}: expected sequence ${next}, found ${seq}`);
        if (r.eventName === 'GAP') result.violations.push(`shard ${shard.ShardId}: GAP record at ${seq}`);
        const key = keyString(r.dynamodb.Keys!);
        if (r.eventName === 'REMOVE') replay.items.delete(key);
        else if (r.dynamodb.NewImage) replay.items.set(key, canonical(r.dynamodb.NewImage));
        next = seq + 1;
        result.streamRecords += 1;
      }
    }
    if (shard.SequenceNumberRange.LastSequenceNumber !== next - 1) {
      result.violations.push(`shard ${shard.ShardId}: LastSequenceNumber ${shard.SequenceNumberRange.LastSequenceNumber}, read up to ${next - 1}`);
    }
    replay.next.set(shard.ShardId, next);
  }
  let differing = 0;
  for (const k of new Set([...replay.items.keys(), ...actual.keys()])) {
    if (replay.items.get(k) !== (actual.has(k) ? canonical(actual.get(k)) : undefined)) differing += 1;
  }
  if (differing > 0) result.violations.push(`the change log replays to a table that differs from the store in ${differing} items`);
}
