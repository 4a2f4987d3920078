/**
 * The crash harness's child process. Protocol over the IPC channel:
 *   child -> parent  { t: 'ready' }                      imports done, waiting
 *   parent -> child  { t: 'go', path, seed, cycle, durability, inFlight }
 *   child -> parent  { t: 'started', items }             store open, model read
 *   child -> parent  { t: 'ack', i, ok, fp }             op i RETURNED (ok = it succeeded,
 *                                                        false = it was rejected as expected)
 *   child -> parent  { t: 'unexpected', i, detail }      op i did not do what the model expects
 *   child -> parent  { t: 'idle' }                       ran MAX_OPS_PER_CYCLE ops
 * The parent SIGKILLs the child at a random moment. An ack is sent only after the op's method
 * returned, i.e. after its txn committed (durability 'sync': fsynced). With inFlight > 0 the ops
 * go through db.promises, up to inFlight at a time, and op i is acknowledged when its promise
 * resolved (durable by db.promises' contract), in order.
 * In 'interval' durability each ack also carries its time (Date.now()): the parent allows the
 * loss of the acknowledged ops of the last CRASH_SYNC_INTERVAL_MS (default 100) before the kill.
 * In 'log' and 'interval' durability the worker also makes its store hand the folder over and take the log back
 * up (redo-handover.ts) every HANDOVER_PERIOD ops: it registers its parent (a live process) as
 * another writer, then removes that registration, so cuts land in handovers, in the durable
 * commits between, and in the log's restart, with db.promises writes in flight across them. In odd
 * cycles of the synchronous API the registration is noticed by the next commit, in the same turn,
 * so the handover closes the log with a checkpoint in flight.
 */
import { statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from '../../../src/edgetable.js';
import { currentBootId } from '../../../src/storage/redo-log-file.js';
import type { OperationName } from '../../../src/ops/operations.js';
import { readStore } from './read-table.js';
import { MAX_OPS_PER_CYCLE, Workload, crashSyncIntervalMs, toRequest } from './workload.js';

type Go = { t: 'go'; path: string; seed: number; cycle: number; durability: 'sync' | 'relaxed' | 'log' | 'interval'; inFlight: number };
const HANDOVER_PERIOD = 60;

/** Registers the parent as another writer of the folder (a live process), or removes that. */
function registerOtherWriter(path: string, present: boolean): void {
  const file = join(path, `redo.writer-${process.ppid}`);
  if (present) writeFileSync(file, `${process.ppid}\n${currentBootId()}\n`);
  else unlinkSync(file);
}

/** registerOtherWriter, then waits until the store followed (its folder watcher, or a commit, noticed). */
async function fakeOtherWriter(db: ReturnType<typeof open>, path: string, present: boolean): Promise<void> {
  registerOtherWriter(path, present);
  await storeFollowed(db, present);
}

async function storeFollowed(db: ReturnType<typeof open>, present: boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (db.store.logging === present) {
    if (Date.now() > deadline) throw new Error(`the store did not ${present ? 'hand the folder over' : 'take the log back up'} within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

type Outcome = { response?: { UnprocessedItems?: Record<string, unknown> }; error?: Error };

/**
 * Under the power-cut shim: how many bytes its journal holds once an op returned (every record of
 * the op is in it by then), so a cut can be placed before or after each acknowledgement.
 */
function journaled(): { at?: number } {
  const journal = process.env.POWERCUT_JOURNAL;
  return journal === undefined ? {} : { at: statSync(journal).size };
}

function send(message: Record<string, unknown>): void {
  process.send!(message);
}

async function run(go: Go): Promise<void> {
  // 'log': a checkpoint every 8 commits, so every cycle switches log files and cuts land inside checkpoints.
  // CRASH_LOG_WRITES_PER_COMMIT: 'log' holds that many writes per LMDB txn (storage/held-txn.ts).
  // 'interval': checkpoints (which flush the log too) rarer, so the deferred flush is what bounds the loss.
  const logWritesPerCommit = Number(process.env.CRASH_LOG_WRITES_PER_COMMIT ?? 1);
  const logs = go.durability === 'log' || go.durability === 'interval';
  const db = open({
    path: go.path,
    durability: go.durability,
    ...(go.durability === 'log' ? { checkpoint: { commits: 8, bytes: 64 * 1024, pages: 64 }, logWritesPerCommit } : {}),
    ...(go.durability === 'interval' ? { checkpoint: { commits: 64, bytes: 256 * 1024, pages: 1024 }, logWritesPerCommit, syncIntervalMs: crashSyncIntervalMs() } : {}),
  });
  const model = readStore(db);
  send({ t: 'started', items: model.size });
  const workload = new Workload(go.seed, go.cycle);
  const pending: Promise<boolean>[] = [];
  let acked = 0;
  for (let i = 0; i < MAX_OPS_PER_CYCLE; i++) {
    // Odd cycles of the synchronous API register the other writer without yielding: the next
    // op's commit notices it and hands over in the same turn, with a checkpoint begun by the
    // commits before still in flight (its flush's completion cannot run before the loop yields).
    const handOverInTurn = go.inFlight === 0 && go.cycle % 2 === 1;
    if (logs && i % HANDOVER_PERIOD === 20) {
      if (handOverInTurn) registerOtherWriter(go.path, true);
      else await fakeOtherWriter(db, go.path, true);
    }
    if (logs && i % HANDOVER_PERIOD === 21 && handOverInTurn) await storeFollowed(db, true);
    if (logs && i % HANDOVER_PERIOD === 50) await fakeOtherWriter(db, go.path, false);
    const { op, ok, fingerprint } = workload.next(model);
    const { operation, request, rejection } = toRequest(op);
    const judge = (outcome: Outcome): boolean => {
      const problem = judgeOutcome(operation, ok, rejection, outcome);
      if (problem !== undefined) {
        send({ t: 'unexpected', i, detail: problem });
        return false;
      }
      send({ t: 'ack', i, ok, fp: fingerprint, ms: Date.now(), ...journaled() });
      return true;
    };
    if (go.inFlight === 0) {
      if (!judge(runSync(db, operation as OperationName, request))) return;
      continue;
    }
    const issued = db.promises.execute(operation as OperationName, request).then(
      (response) => ({ response: response as Outcome['response'] }),
      (error: unknown) => ({ error: error as Error }),
    );
    // Acks go out in op order: op i's ack waits for every op before it.
    const previous = pending[pending.length - 1] ?? Promise.resolve(true);
    pending.push(Promise.all([previous, issued]).then(([fine, outcome]) => fine && judge(outcome)));
    if (pending.length - acked >= go.inFlight) {
      if (!(await pending[acked]!)) return;
      acked += 1;
    }
  }
  if (pending.length > 0 && !(await pending[pending.length - 1]!)) return;
  send({ t: 'idle' });
}

function runSync(db: ReturnType<typeof open>, operation: OperationName, request: Record<string, unknown>): Outcome {
  try {
    return { response: db.execute(operation, request) as Outcome['response'] };
  } catch (error) {
    return { error: error as Error };
  }
}

/** What went wrong when the op did not do what the model expects; undefined when it did. */
function judgeOutcome(operation: string, ok: boolean, rejection: string | undefined, outcome: Outcome): string | undefined {
  if (outcome.error !== undefined) {
    const name = outcome.error.name;
    return ok || name !== rejection ? `${operation} threw ${name}: ${outcome.error.message} ${process.env.CRASH_STACKS ? outcome.error.stack : ""}` : undefined;
  }
  if (outcome.response?.UnprocessedItems && Object.keys(outcome.response.UnprocessedItems).length > 0) return 'BatchWriteItem returned UnprocessedItems';
  return ok ? undefined : `${operation} succeeded but the model expected ${rejection ?? 'a rejection'}`;
}

process.on('message', (message: Go) => {
  if (message.t === 'go') {
    run(message).catch((error: unknown) => send({ t: 'unexpected', i: -1, detail: String(error) }));
  }
});
send({ t: 'ready' });
