/**
 * Runs crash cycles on one store: per cycle a worker process (crash-worker.ts) runs the workload,
 * is SIGKILLed after a random delay, and the parent checks the reopened store (crash-check.ts).
 *
 * Cost: the worker is bundled once with esbuild (tsx's start-up is seconds on a loaded CI box),
 * and the next cycle's worker is started while the current one runs, so it is loaded and waiting
 * for its `go` by the time the check ends. The store is opened by one process at a time: the next
 * worker opens it only after the parent has closed it.
 *
 * Power cuts (`powerCut`): the workers run under powercut-shim.c and, after each kill, the store
 * folder's files (all but lock.mdb) are replaced by what a disk would hold after losing power at
 * that moment (power-cut.ts) before the check. `durability` and `promises` choose how the worker
 * writes and what an acknowledgement means (crash-worker.ts); with 'relaxed' the check allows the
 * documented loss (the last committed write, see storage/store-options.ts) and counts it. Every
 * power cut is also a restart: each worker and each check run with a boot id of their own
 * (EDGETABLE_TEST_BOOT_ID), so a 'log' store recovers from its checkpoint as after a reboot.
 * With 'interval' the check allows the loss of acknowledged ops whose redo log record no returned
 * flush covered by the cut (every-cut.ts logDurableFrom), as a suffix, and counts them, with how
 * long before the kill the oldest of them was acknowledged (when the flush starts is
 * test/storage/redo-log-interval.test.ts's to prove); any other loss is a violation.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { open } from '../../../src/edgetable.js';
import { workerEntry as bundledWorker } from './bundle-worker.js';
import { checkAfterKill, type Acks, type Replay } from './crash-check.js';
import { buildPowerCutShim, parseJournal, rebuildFolder, shimEnvironment, snapshotFolder, writeFolder, type FolderFiles, type PowerCutOptions } from './power-cut.js';
import { createRng } from './rng.js';
import { createTableRequest, type Model } from './workload.js';
import { logDurableFrom } from './every-cut.js';
import type { JournalRecord } from './power-cut-journal.js';

export type CrashRunOptions = {
  /** The store's folder; created with the table when missing. */
  path: string;
  cycles: number;
  seed: number;
  /** The kill comes uniformly within this many ms after the worker reports its store open. */
  maxKillDelayMs?: number;
  /** Share of cycles killed at a random moment after `go`, possibly while opening. Default 0.1. */
  earlyKillShare?: number;
  /** Workers started ahead of their cycle. Default 2. */
  prefork?: number;
  onCycle?: (cycle: number, figures: CrashFigures) => void;
  /** Simulate a power cut at each kill instead of a process crash. */
  powerCut?: PowerCutOptions;
  /** The worker's store durability. Default 'sync'. */
  durability?: 'sync' | 'relaxed' | 'log' | 'interval';
  /** The worker writes through db.promises, up to this many ops in flight (0 = the synchronous API). */
  promisesInFlight?: number;
};

export type CrashFigures = {
  cycles: number;
  /** Acknowledged ops checked after the kills (writes plus expected rejections). */
  ackedOps: number;
  /** Acknowledged ops that wrote; each found in the store after the kill that followed it. */
  ackedWrites: number;
  acknowledgedTransactions: number;
  /** Ops in flight at a kill that turned out applied (the rest of the kills hit between ops or the op was lost whole). */
  inFlightApplied: number;
  keysCompared: number;
  streamRecordsReplayed: number;
  /** 'relaxed' only: cycles whose last acknowledged write was lost, as documented. */
  lostLastWrites: number;
  /** 'interval' only: acknowledged ops lost (within the window), and the oldest of them: how long before the kill it was acknowledged. */
  lostAckedOps: number;
  oldestLossMs: number;
  /** Acknowledged ops that had to be found after the cuts ('interval': those a returned flush covered; else all). */
  requiredAcks: number;
  /** Power cuts: writes journaled, found durable, and 4 KiB pieces of unflushed writes kept and dropped. */
  journaledWrites: number;
  durableWrites: number;
  unflushedPiecesKept: number;
  unflushedPiecesDropped: number;
  /** Power cuts: files created, unlinked or renamed by the workers, and how many of those changes the cuts kept. */
  nameChanges: number;
  nameChangesKept: number;
  /** Power cuts: journaled writes by file name, over all cycles (which files the workers wrote). */
  writesByFile: Record<string, number>;
  violations: string[];
  ms: number;
};

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../../..');

type Worker = { proc: ChildProcess; ready: Promise<void>; stderr: string[]; journal?: string };

export async function runCrashCycles(options: CrashRunOptions): Promise<CrashFigures> {
  const started = performance.now();
  const figures: CrashFigures = {
    cycles: 0,
    ackedOps: 0,
    ackedWrites: 0,
    acknowledgedTransactions: 0,
    inFlightApplied: 0,
    keysCompared: 0,
    streamRecordsReplayed: 0,
    lostLastWrites: 0,
    lostAckedOps: 0,
    oldestLossMs: 0,
    requiredAcks: 0,
    journaledWrites: 0,
    durableWrites: 0,
    unflushedPiecesKept: 0,
    unflushedPiecesDropped: 0,
    nameChanges: 0,
    nameChangesKept: 0,
    writesByFile: {},
    violations: [],
    ms: 0,
  };
  let model = setUpStore(options.path);
  const replay: Replay = { next: new Map(), items: new Map() };
  const rng = createRng(options.seed ^ 0x5bd1e995);
  const maxDelay = options.maxKillDelayMs ?? 250;
  const earlyShare = options.earlyKillShare ?? 0.1;
  const entry = workerEntry();
  const shim = options.powerCut ? buildPowerCutShim() : undefined;
  let spawned = 0;
  const spawn = (): Worker => {
    spawned += 1;
    if (!options.powerCut || shim === undefined) return spawnWorker(entry);
    const journal = `${options.path}.journal-${spawned}`;
    rmSync(journal, { force: true });
    // A power cut is a restart: each worker runs in a boot of its own, and the check in another (fakeReboot).
    return spawnWorker(entry, { ...shimEnvironment(shim, options.path, journal, options.powerCut), EDGETABLE_TEST_BOOT_ID: randomBytes(16).toString('hex') }, journal);
  };
  const lossWindow = options.durability === 'relaxed' ? 1 : 0;
  // Workers start loading this many cycles ahead: start-up, not the check, bounds the cycle rate.
  const queue = Array.from({ length: Math.min(options.prefork ?? 2, options.cycles) }, spawn);
  try {
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const worker = queue.shift()!;
      await worker.ready;
      if (cycle + queue.length < options.cycles) queue.push(spawn());
      const acks: Acks = { fingerprints: [], outcomes: [], times: [], journaled: [] };
      const before = options.powerCut ? snapshotFolder(options.path) : undefined;
      const go = { t: 'go', path: options.path, seed: options.seed, cycle, durability: options.durability ?? 'sync', inFlight: options.promisesInFlight ?? 0 };
      const { problem: outcome, killedAt } = await runOne(worker, go, acks, rng.chance(earlyShare), rng.int(maxDelay + 1));
      if (outcome !== undefined) figures.violations.push(`cycle ${cycle}: ${outcome}`);
      let mustHave = acks.fingerprints.length;
      if (options.powerCut && before !== undefined && worker.journal !== undefined) {
        const journal = existsSync(worker.journal) ? readFileSync(worker.journal) : Buffer.alloc(0);
        const records = parseJournal(journal);
        if (options.durability === 'interval') mustHave = mustSurvive(records, journal, acks);
        const { files, figures: f } = rebuildFolder(before, records, options.powerCut.mode, rng);
        writeFolder(options.path, files);
        if (process.env.POWER_CUT_DEBUG) keepForDebugging(join(debugRoot(process.env.POWER_CUT_DEBUG), debugRunName(options), `cycle-${cycle}`), before, files, journal, acks);
        rmSync(worker.journal, { force: true });
        figures.journaledWrites += f.writes;
        figures.durableWrites += f.durableWrites;
        figures.unflushedPiecesKept += f.unflushedPiecesKept;
        figures.unflushedPiecesDropped += f.unflushedPiecesDropped;
        figures.nameChanges += f.nameChanges;
        figures.nameChangesKept += f.nameChangesKept;
        for (const [name, n] of Object.entries(f.writesByFile)) figures.writesByFile[name] = (figures.writesByFile[name] ?? 0) + n;
      }
      if (options.powerCut) process.env.EDGETABLE_TEST_BOOT_ID = randomBytes(16).toString('hex');
      let r: ReturnType<typeof checkAfterKill>;
      try {
        r = checkAfterKill(options.path, options.seed, cycle, model, acks, replay, lossWindow, 'unclean', mustHave);
      } finally {
        delete process.env.EDGETABLE_TEST_BOOT_ID;
      }
      if (r.lostLastWrite) figures.lostLastWrites += 1;
      figures.requiredAcks += mustHave;
      if (r.lostAckedOps > 0) {
        figures.lostAckedOps += r.lostAckedOps;
        const firstLost = acks.times![acks.fingerprints.length - r.lostAckedOps]!;
        figures.oldestLossMs = Math.max(figures.oldestLossMs, killedAt - firstLost);
      }
      model = r.model;
      figures.cycles = cycle;
      figures.ackedOps += r.ackedOps;
      figures.ackedWrites += r.ackedWrites;
      figures.acknowledgedTransactions += r.transactions;
      figures.inFlightApplied += r.inFlightApplied;
      figures.keysCompared += r.keysCompared;
      figures.streamRecordsReplayed += r.streamRecords;
      for (const v of r.violations) figures.violations.push(`cycle ${cycle}: ${v}`);
      figures.ms = Math.round(performance.now() - started);
      options.onCycle?.(cycle, figures);
    }
  } finally {
    for (const w of queue) {
      w.proc.kill('SIGKILL');
      if (w.journal !== undefined) rmSync(w.journal, { force: true });
    }
  }
  figures.ms = Math.round(performance.now() - started);
  return figures;
}

/** 'interval': how many of the acknowledged ops must survive the cut: up to the last whose record a returned flush covered. */
function mustSurvive(records: readonly JournalRecord[], journal: Buffer, acks: Acks): number {
  let must = 0;
  acks.journaled!.forEach((bytes, i) => {
    if (logDurableFrom(records, parseJournal(journal.subarray(0, bytes)).length) <= records.length) must = i + 1;
  });
  return must;
}

export function setUpStore(path: string): Model {
  mkdirSync(path, { recursive: true });
  const db = open({ path });
  try {
    if (!(db.listTables().TableNames ?? []).includes('Crash')) db.createTable(createTableRequest());
    return new Map();
  } finally {
    db.close();
  }
}

/** POWER_CUT_DEBUG's folder: an absolute path as given; anything else (`1`, a relative name) under the temp folder, never inside the checkout. */
function debugRoot(value: string): string {
  return isAbsolute(value) ? value : join(tmpdir(), 'edgetable-power-cut-debug', basename(value));
}

/** A run's folder under POWER_CUT_DEBUG: runs of one test file (one seed) differ in durability and API. */
function debugRunName(options: CrashRunOptions): string {
  return `seed-${options.seed}-${options.durability ?? 'sync'}${options.promisesInFlight ? `-promises${options.promisesInFlight}` : ''}${options.powerCut?.noFlush ? '-noflush' : ''}`;
}

/** POWER_CUT_DEBUG: the cycle's files before, after the cut, its journal and acknowledgements. */
function keepForDebugging(out: string, before: FolderFiles, after: FolderFiles, journal: Buffer, acks: Acks): void {
  for (const [side, files] of [['before', before], ['after', after]] as const) {
    mkdirSync(join(out, side), { recursive: true });
    for (const [name, content] of files) writeFileSync(join(out, side, name), content);
  }
  writeFileSync(join(out, 'journal'), journal);
  writeFileSync(join(out, 'acks.json'), JSON.stringify(acks));
}

/** Resolves with a problem report (undefined when the worker behaved until it was killed) and when the kill came. */
function runOne(worker: Worker, go: Record<string, unknown>, acks: Acks, early: boolean, delayMs: number): Promise<{ problem: string | undefined; killedAt: number }> {
  const { proc } = worker;
  return new Promise((resolvePromise) => {
    let problem: string | undefined;
    let killed = false;
    let killedAt = Date.now();
    const kill = (): void => {
      if (killed) return;
      killed = true;
      killedAt = Date.now();
      proc.kill('SIGKILL');
    };
    const timer = setTimeout(kill, early ? delayMs : 30_000);
    proc.on('message', (m: { t: string; i?: number; ok?: boolean; fp?: number; ms?: number; at?: number; detail?: string }) => {
      if (m.t === 'started' && !early) {
        clearTimeout(timer);
        setTimeout(kill, delayMs);
      } else if (m.t === 'ack') {
        if (m.i !== acks.fingerprints.length) problem ??= `ack ${m.i} out of order`;
        acks.fingerprints.push(m.fp!);
        acks.outcomes.push(m.ok!);
        acks.times?.push(m.ms ?? 0);
        acks.journaled?.push(m.at ?? 0);
      } else if (m.t === 'unexpected') {
        problem ??= `worker: op ${m.i}: ${m.detail}`;
      }
    });
    proc.once('close', (code, signal) => {
      clearTimeout(timer);
      if (!killed) problem ??= `worker exited by itself (code ${code}, signal ${signal}): ${worker.stderr.join('').slice(0, 500)}`;
      resolvePromise({ problem, killedAt });
    });
    proc.send(go);
  });
}

function spawnWorker(entry: { file: string; execArgv: string[] }, env?: NodeJS.ProcessEnv, journal?: string): Worker {
  const proc = fork(entry.file, [], { cwd: repoRoot, execArgv: entry.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], ...(env ? { env } : {}) });
  const stderr: string[] = [];
  proc.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const ready = new Promise<void>((resolveReady, reject) => {
    const onMessage = (m: { t: string }): void => {
      if (m.t !== 'ready') return;
      proc.off('message', onMessage);
      proc.off('exit', onExit);
      resolveReady();
    };
    const onExit = (): void => reject(new Error(`crash worker exited before it was ready: ${stderr.join('').slice(0, 2000)}`));
    proc.on('message', onMessage);
    proc.once('exit', onExit);
  });
  ready.catch(() => undefined);
  return { proc, ready, stderr, ...(journal !== undefined ? { journal } : {}) };
}

/** The worker as one ESM file under node_modules/.cache (harness/bundle-worker.ts), or its .ts source through tsx. */
export function workerEntry(): { file: string; execArgv: string[] } {
  return bundledWorker(join(here, 'crash-worker.ts'));
}
