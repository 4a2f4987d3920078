/**
 * Power cuts at every flush of one run, instead of at a random moment of many: one worker
 * (crash-worker.ts, under powercut-shim.c) runs the crash workload for `ops` ops, handovers and
 * take-backs of the redo log included when durability is 'log', and is killed. Then, for every
 * point of its journal where something became durable (each flush of a file or of the folder,
 * each synchronous write) and on both sides of each acknowledgement, the folder is rebuilt as a
 * disk would hold it had the power gone right there ('last-flush': only what was flushed; and
 * 'reorder': plus a random half of the unflushed 4 KiB pieces and a random prefix of the name
 * changes), reopened as after a restart (a boot id of its own) and checked with the acknowledgements
 * made before that point (crash-check.ts). A random kill reaches a narrow window once in hundreds of
 * cycles; this reaches every one of them in one run. With `cycles` > 1 the store then goes on from
 * one of those cuts, chosen at random and recovered in place as the random harness does, so later
 * cycles start from what a recovery left behind.
 * In 'interval' durability an acknowledged op may be lost at a cut until a flush of the log file its
 * record went to (or a durable LMDB commit after it) returned before that cut (logDurableFrom), and
 * only as a suffix of the acknowledged ops.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { checkAfterKill, type Acks, type CheckResult, type Replay } from './crash-check.js';
import { parseJournal, type JournalRecord } from './power-cut-journal.js';
import { buildPowerCutShim, rebuildFolder, shimEnvironment, snapshotFolder, writeFolder, type PowerCutMode } from './power-cut.js';
import { createRng } from './rng.js';
import { setUpStore, workerEntry, repoRoot } from './crash-runner.js';
import type { Model } from './workload.js';

export type EveryCutOptions = {
  /** The store's folder (created with the table); the cuts are checked in `${path}-cut`. */
  path: string;
  seed: number;
  durability: 'sync' | 'log' | 'interval';
  /** The worker is killed once it acknowledged this many ops. */
  ops: number;
  /** Cycles, each cut at every point and continued from one of them (default 1). */
  cycles?: number;
  /** The worker writes through db.promises with this many ops in flight (default 0: the synchronous API). */
  promisesInFlight?: number;
  /** The worker's flushes do nothing (POWERCUT_NOFLUSH): the check must then find lost writes. */
  noFlush?: boolean;
};

export type EveryCutFigures = {
  journalRecords: number;
  ackedOps: number;
  /** Cut points checked, each in both modes. */
  cuts: number;
  /** Over the cuts: acknowledged ops that had to be found ('interval': those a returned flush covered; else all). */
  requiredAcks: number;
  violations: string[];
};

type Ack = { fp: number; ok: boolean; at: number };

export async function runEveryCut(options: EveryCutOptions): Promise<EveryCutFigures> {
  let model = setUpStore(options.path);
  let replay: Replay = { next: new Map(), items: new Map() };
  const figures: EveryCutFigures = { journalRecords: 0, ackedOps: 0, cuts: 0, requiredAcks: 0, violations: [] };
  const rng = createRng(options.seed ^ 0x2545f491);
  const cutDir = `${options.path}-cut`;
  for (let cycle = 1; cycle <= (options.cycles ?? 1); cycle++) {
    const before = snapshotFolder(options.path);
    const journalPath = `${options.path}.journal`;
    rmSync(journalPath, { force: true });
    const acks = await runWorker(options, cycle, journalPath);
    const journal = existsSync(journalPath) ? readFileSync(journalPath) : Buffer.alloc(0);
    rmSync(journalPath, { force: true });
    const records = parseJournal(journal);
    // How many whole records the journal held when each op was acknowledged.
    const ackedAt = acks.map((a) => parseJournal(journal.subarray(0, a.at)).length);
    const ackedBy = (k: number): Acks => {
      const acked = acks.filter((_, i) => ackedAt[i]! <= k);
      return { fingerprints: acked.map((a) => a.fp), outcomes: acked.map((a) => a.ok) };
    };
    // From which cut on each acknowledged op must be found ('interval'); 0: at once.
    const durableFrom = options.durability === 'interval' ? ackedAt.map((at) => logDurableFrom(records, at)) : ackedAt.map(() => 0);
    const mustHaveAt = (k: number): number => {
      let must = 0;
      durableFrom.forEach((from, i) => {
        if (ackedAt[i]! <= k && from <= k) must = i + 1;
      });
      return must;
    };

    // Right after each flush (what it made durable) and right before it (everything written
    // since the last one in flight: in 'reorder', every prefix of the pending name changes too).
    const points = new Set<number>();
    records.forEach((r, i) => {
      if (r.kind === 'F' || r.kind === 'D' || r.kind === 'A' || r.kind === 'S') points.add(i + 1);
      if (r.kind === 'F' || r.kind === 'D' || r.kind === 'A') points.add(i);
    });
    for (const k of ackedAt) {
      points.add(k);
      if (k > 0) points.add(k - 1);
    }
    points.add(records.length);
    figures.journalRecords += records.length;
    figures.ackedOps += acks.length;

    for (const k of [...points].sort((a, b) => a - b)) {
      const known = ackedBy(k);
      // Returns how many name changes no flush of the folder covered at this point.
      const check = (mode: PowerCutMode, names?: number): number => {
        const { files, figures: rebuilt } = rebuildFolder(before, records.slice(0, k), mode, rng, names);
        rmSync(cutDir, { recursive: true, force: true });
        mkdirSync(cutDir, { recursive: true });
        writeFolder(cutDir, files);
        const r = checkAsRestarted(cutDir, options.seed, cycle, model, known, copyReplay(replay), mustHaveAt(k));
        const how = names === undefined ? mode : `${mode}, ${rebuilt.nameChangesKept - rebuilt.nameChangesDurable} of ${rebuilt.nameChanges - rebuilt.nameChangesDurable} unflushed name changes`;
        for (const v of r.violations) figures.violations.push(`cycle ${cycle}, cut after journal record ${k} of ${records.length} (${how}, ${known.fingerprints.length} acknowledged): ${v}`);
        return rebuilt.nameChanges - rebuilt.nameChangesDurable;
      };
      const pending = check('last-flush');
      if (pending === 0) check('reorder');
      else for (let names = 0; names <= Math.min(pending, MAX_NAME_PREFIXES); names++) check('reorder', names);
      figures.cuts += 1;
      figures.requiredAcks += mustHaveAt(k);
    }

    // The store goes on from one of the cuts, recovered in place.
    const k = rng.int(records.length + 1);
    const { files } = rebuildFolder(before, records.slice(0, k), 'reorder', rng);
    writeFolder(options.path, files);
    const r = checkAsRestarted(options.path, options.seed, cycle, model, ackedBy(k), replay, mustHaveAt(k));
    for (const v of r.violations) figures.violations.push(`cycle ${cycle}, continuing from the cut after journal record ${k}: ${v}`);
    model = r.model;
  }
  rmSync(cutDir, { recursive: true, force: true });
  return figures;
}

/** Every prefix of the unflushed name changes is tried up to this many (a generation switch or a close makes a few). */
const MAX_NAME_PREFIXES = 8;

/** One cut in this many is reopened with the structural check of data.mdb (a child process each): no cut may look damaged. */
const STRUCTURAL_CHECK_EVERY = 25;
let checksAsRestarted = 0;

/** checkAfterKill in a boot of its own, as after a power cut. */
function checkAsRestarted(path: string, seed: number, cycle: number, model: Model, acks: Acks, replay: Replay, mustHave: number): CheckResult {
  process.env.EDGETABLE_TEST_BOOT_ID = randomBytes(16).toString('hex');
  try {
    const structural = checksAsRestarted++ % STRUCTURAL_CHECK_EVERY === 0 ? 'always' : 'never';
    return checkAfterKill(path, seed, cycle, new Map(model), acks, replay, 0, structural, mustHave);
  } finally {
    delete process.env.EDGETABLE_TEST_BOOT_ID;
  }
}

/**
 * 'interval': the journal length from which the op acknowledged when the journal held `at` records
 * is durable. Its record is the last write to a redo log file before the ack, durable once a flush
 * of that file (or a sync) that started after it returned; a durable LMDB commit since (an 'S'
 * write of the meta page: the log was handed over) makes it durable at once.
 */
export function logDurableFrom(records: readonly JournalRecord[], at: number): number {
  const names = new Map<number, string>();
  for (const r of records) if (r.kind === 'O') names.set(r.file, r.name);
  const isLog = (file: number): boolean => /^redo-[abc]\.log$/.test(names.get(file) ?? '');
  for (let j = at - 1; j >= 0; j--) {
    const r = records[j]!;
    if (r.kind === 'S') return at;
    if (r.kind !== 'W' || !isLog(r.file)) continue;
    const name = names.get(r.file);
    for (let f = at; f < records.length; f++) {
      const x = records[f]!;
      if (x.kind === 'A' && x.covers > r.seq) return f + 1;
      if (x.kind === 'F' && x.covers > r.seq && names.get(x.file) === name) return f + 1;
    }
    return Infinity;
  }
  return at;
}

function copyReplay(replay: Replay): Replay {
  return { next: new Map(replay.next), items: new Map(replay.items) };
}

/** Runs one worker until it acknowledged `ops` ops (or stopped), then kills it; its acknowledgements with their journal sizes. */
function runWorker(options: EveryCutOptions, cycle: number, journal: string): Promise<Ack[]> {
  const entry = workerEntry();
  const env = { ...shimEnvironment(buildPowerCutShim(), options.path, journal, { mode: 'last-flush', noFlush: options.noFlush ?? false }), EDGETABLE_TEST_BOOT_ID: randomBytes(16).toString('hex') };
  const proc = fork(entry.file, [], { cwd: repoRoot, execArgv: entry.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env });
  const stderr: string[] = [];
  proc.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const acks: Ack[] = [];
  return new Promise((resolve, reject) => {
    let problem: string | undefined;
    const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000);
    proc.on('message', (m: { t: string; i?: number; ok?: boolean; fp?: number; at?: number; detail?: string }) => {
      if (m.t === 'ready') {
        proc.send({ t: 'go', path: options.path, seed: options.seed, cycle, durability: options.durability, inFlight: options.promisesInFlight ?? 0 });
      } else if (m.t === 'ack') {
        if (m.at === undefined) problem ??= 'the worker sent no journal size with its ack';
        acks.push({ fp: m.fp!, ok: m.ok!, at: m.at ?? 0 });
        if (acks.length >= options.ops) proc.kill('SIGKILL');
      } else if (m.t === 'unexpected') {
        problem ??= `worker: op ${m.i}: ${m.detail}`;
      } else if (m.t === 'idle') {
        proc.kill('SIGKILL');
      }
    });
    proc.once('close', () => {
      clearTimeout(timer);
      if (problem !== undefined) reject(new Error(`${problem} ${stderr.join('').slice(0, 1000)}`));
      else resolve(acks);
    });
  });
}
