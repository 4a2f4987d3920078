/**
 * Power-cut simulation for the crash harness: the worker runs with powercut-shim.c preloaded,
 * which journals every write to, flush of and name change of the files in the store's folder
 * (today only data.mdb holds durable state; not lock.mdb, not subfolders); after the SIGKILL,
 * rebuildFolder() turns the folder's files as they were at the start of the cycle (durable then:
 * the checker's own commits are flushed) plus the journal into the files a disk would hold after
 * losing power, writeFolder() puts them in place, and the parent checks those instead of the
 * ones in the page cache.
 *
 * What a lost-power disk is assumed to keep (the journal grammar is in powercut-shim.c), per file:
 * - every write and truncate a returned flush OF THAT FILE covered (or a sync/syncfs), and every
 *   write on an O_SYNC/O_DSYNC descriptor;
 * - of the other writes: none ('last-flush'), or ('reorder') each 4 KiB piece of each one
 *   independently with probability 1/2, as a disk that reorders and tears unflushed writes;
 *   of the other truncates: none ('last-flush'), or each with probability 1/2 ('reorder').
 * And for the folder: every name change (file created, unlinked, renamed) a returned flush of the
 * folder covered (or a sync/syncfs); of the others none ('last-flush') or a random prefix
 * ('reorder'). A file whose creation is lost is absent, whatever was flushed into it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JournalRecord } from './power-cut-journal.js';
import type { Rng } from './rng.js';

export { parseJournal, type JournalRecord } from './power-cut-journal.js';

export type PowerCutMode = 'last-flush' | 'reorder';

export type PowerCutOptions = {
  mode: PowerCutMode;
  /** The worker's flushes do nothing (the shim swallows them): the harness must find violations. */
  noFlush?: boolean;
};

export type RebuildFigures = {
  writes: number;
  durableWrites: number;
  unflushedPiecesKept: number;
  unflushedPiecesDropped: number;
  flushes: number;
  /** Files created, unlinked or renamed during the cycle, and how many of those changes the cut kept. */
  nameChanges: number;
  nameChangesKept: number;
  /** Of those, how many a flush of the folder (or sync) had made durable before the cut. */
  nameChangesDurable: number;
  /** Journaled writes by the name the file was opened under (which files the cycle wrote). */
  writesByFile: Record<string, number>;
};

/** The folder's files that hold state, by name: LMDB's lock file is shared memory, rebuilt at open. */
export type FolderFiles = Map<string, Buffer>;

const here = dirname(fileURLToPath(import.meta.url));
const PIECE_BYTES = 4096;
const LOCK_FILE = 'lock.mdb';

/**
 * Compiles the shim with cc once per source change; returns the .so path. Compiled under a private
 * name and renamed into place: test files run in parallel, and a worker must never preload a
 * library another one is still writing.
 */
export function buildPowerCutShim(): string {
  const source = join(here, 'powercut-shim.c');
  const outdir = resolve(here, '../../../node_modules/.cache/edgetable-reliability');
  const out = join(outdir, 'libpowercut.so');
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs) return out;
  mkdirSync(outdir, { recursive: true });
  const temporary = `${out}.${process.pid}.tmp`;
  execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-shared', '-fPIC', '-o', temporary, source, '-ldl', '-lpthread'], { stdio: 'pipe' });
  renameSync(temporary, out);
  return out;
}

/** The environment that makes a child journal what it does to the files in `folder` into `journal`. */
export function shimEnvironment(shim: string, folder: string, journal: string, options: PowerCutOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LD_PRELOAD: [shim, process.env.LD_PRELOAD].filter(Boolean).join(' '),
    POWERCUT_DIR: realpathSync(folder),
    POWERCUT_JOURNAL: journal,
    // libuv may submit file I/O through io_uring, which no preloaded library sees.
    UV_USE_IO_URING: '0',
  };
  if (options.noFlush) env.POWERCUT_NOFLUSH = '1';
  else delete env.POWERCUT_NOFLUSH;
  return env;
}

/** The names of the files the shim watches in `folder`: regular files directly in it but lock.mdb. */
function watchedNames(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name !== LOCK_FILE)
    .map((e) => e.name);
}

/** The watched files' contents now (taken before a cycle: what the disk holds at its start). */
export function snapshotFolder(folder: string): FolderFiles {
  return new Map(watchedNames(folder).map((name) => [name, readFileSync(join(folder, name))]));
}

/** Makes the folder's watched files exactly `files`: the others are removed; lock.mdb is left alone. */
export function writeFolder(folder: string, files: FolderFiles): void {
  for (const name of watchedNames(folder)) if (!files.has(name)) rmSync(join(folder, name));
  for (const [name, content] of files) writeFileSync(join(folder, name), content);
}

type DataRecord = Extract<JournalRecord, { kind: 'W' | 'S' | 'T' }>;
/** A file (an inode): its content at the cycle's start, what was done to it, and its last flush. */
type FileState = { start: Buffer; changes: DataRecord[]; covered: number };
type NameChange = { seq: number; apply(names: Map<string, FileState>): void };

/**
 * The folder after a power cut: `before` (durable at the cycle's start) plus what survives of the
 * journal's records (parseJournal). Throws when the journal opens a file the snapshot lacks.
 * `unflushedNameChanges` sets how many of the name changes not yet durable 'reorder' keeps (a
 * prefix, clamped; default: a random number of them), so a caller can try every prefix.
 */
export function rebuildFolder(
  before: FolderFiles,
  records: readonly JournalRecord[],
  mode: PowerCutMode,
  rng: Rng,
  unflushedNameChanges?: number,
): { files: FolderFiles; figures: RebuildFigures } {
  const figures: RebuildFigures = { writes: 0, durableWrites: 0, unflushedPiecesKept: 0, unflushedPiecesDropped: 0, flushes: 0, nameChanges: 0, nameChangesKept: 0, nameChangesDurable: 0, writesByFile: {} };
  const atStart = new Map<string, FileState>([...before].map(([name, start]) => [name, { start, changes: [], covered: 0 }]));
  // Every name change applied, to learn which file each open reached.
  const live = new Map(atStart);
  const byId = new Map<number, FileState>();
  const nameOf = new Map<number, string>();
  const nameChanges: NameChange[] = [];
  let folderCovered = 0;
  let allCovered = 0;
  const fileOf = (id: number): FileState => {
    const f = byId.get(id);
    if (!f) throw new Error(`power-cut journal: file ${id} used before it was opened`);
    return f;
  };
  const named = (names: Map<string, FileState>, name: string): FileState => {
    const f = names.get(name);
    if (!f) throw new Error(`power-cut journal: ${name} is not in the folder (the cycle's snapshot must hold every watched file)`);
    return f;
  };
  const everyCreated = new Set<FileState>();
  for (const r of records) {
    switch (r.kind) {
      case 'O': {
        nameOf.set(r.file, r.name);
        if (!r.created) {
          byId.set(r.file, named(live, r.name));
          break;
        }
        const created: FileState = { start: Buffer.alloc(0), changes: [], covered: 0 };
        everyCreated.add(created); // byId forgets it once its descriptor number is reused
        byId.set(r.file, created);
        live.set(r.name, created);
        nameChanges.push({ seq: r.seq, apply: (names) => names.set(r.name, created) });
        break;
      }
      case 'W':
      case 'S': {
        fileOf(r.file).changes.push(r);
        const name = nameOf.get(r.file)!;
        figures.writesByFile[name] = (figures.writesByFile[name] ?? 0) + 1;
        break;
      }
      case 'T':
        fileOf(r.file).changes.push(r);
        break;
      case 'F': {
        const f = fileOf(r.file);
        f.covered = Math.max(f.covered, r.covers);
        figures.flushes += 1;
        break;
      }
      case 'D':
        folderCovered = Math.max(folderCovered, r.covers);
        figures.flushes += 1;
        break;
      case 'A':
        allCovered = Math.max(allCovered, r.covers);
        figures.flushes += 1;
        break;
      case 'U':
        named(live, r.name);
        live.delete(r.name);
        nameChanges.push({ seq: r.seq, apply: (names) => names.delete(r.name) });
        break;
      case 'R': {
        live.set(r.to, named(live, r.from));
        live.delete(r.from);
        nameChanges.push({
          seq: r.seq,
          apply: (names) => {
            names.set(r.to, named(names, r.from));
            names.delete(r.from);
          },
        });
        break;
      }
      case 'L':
        live.set(r.to, named(live, r.from));
        nameChanges.push({ seq: r.seq, apply: (names) => names.set(r.to, named(names, r.from)) });
        break;
    }
  }
  // Durable name changes are a prefix (seq order); 'reorder' keeps a random longer prefix.
  const namesCovered = Math.max(folderCovered, allCovered);
  const durable = nameChanges.filter((c) => c.seq < namesCovered).length;
  const pending = nameChanges.length - durable;
  const kept = mode !== 'reorder' ? durable : durable + (unflushedNameChanges === undefined ? rng.int(pending + 1) : Math.min(pending, unflushedNameChanges));
  const names = new Map(atStart);
  for (const c of nameChanges.slice(0, kept)) c.apply(names);
  figures.nameChanges = nameChanges.length;
  figures.nameChangesKept = kept;
  figures.nameChangesDurable = durable;
  // Every file, kept or not, so the figures count every journaled write.
  const images = new Map<FileState, Buffer>();
  for (const f of new Set([...atStart.values(), ...everyCreated, ...byId.values()])) images.set(f, fileAfterCut(f, Math.max(f.covered, allCovered), mode, rng, figures));
  const files: FolderFiles = new Map([...names].map(([name, f]) => [name, images.get(f)!]));
  return { files, figures };
}

/** One file's content after the cut: its start plus its covered changes plus what `mode` keeps of the rest. */
function fileAfterCut(f: FileState, covered: number, mode: PowerCutMode, rng: Rng, figures: RebuildFigures): Buffer {
  let image = Buffer.from(f.start);
  const place = (offset: number, data: Buffer): void => {
    const end = offset + data.length;
    if (end > image.length) {
      const grown = Buffer.alloc(end);
      image.copy(grown);
      image = grown;
    }
    data.copy(image, offset);
  };
  for (const r of f.changes) {
    if (r.kind === 'T') {
      if (r.seq < covered || (mode === 'reorder' && rng.chance(0.5))) {
        image = r.length <= image.length ? image.subarray(0, r.length) : Buffer.concat([image, Buffer.alloc(r.length - image.length)]);
      }
      continue;
    }
    figures.writes += 1;
    if (r.kind === 'S' || r.seq < covered) {
      figures.durableWrites += 1;
      place(r.offset, r.data);
      continue;
    }
    for (let piece = 0; piece < r.data.length; piece += PIECE_BYTES) {
      if (mode === 'reorder' && rng.chance(0.5)) {
        place(r.offset + piece, r.data.subarray(piece, Math.min(r.data.length, piece + PIECE_BYTES)));
        figures.unflushedPiecesKept += 1;
      } else {
        figures.unflushedPiecesDropped += 1;
      }
    }
  }
  return image;
}
