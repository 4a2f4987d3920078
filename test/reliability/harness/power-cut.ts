/**
 * Power-cut simulation for the crash harness: the worker runs with powercut-shim.c preloaded,
 * which journals every write to and flush of data.mdb; after the SIGKILL, rebuildImage() turns
 * the data file as it was at the start of the cycle (durable then: the checker's own commits are
 * flushed) plus the journal into the file a disk would hold after losing power, and the parent
 * checks that file instead of the one in the page cache.
 *
 * What a lost-power disk is assumed to keep (the journal grammar is in powercut-shim.c):
 * - every write a returned flush covered, and every write on an O_SYNC/O_DSYNC descriptor;
 * - of the other writes: none ('last-flush'), or ('reorder') each 4 KiB piece of each one
 *   independently with probability 1/2, as a disk that reorders and tears unflushed writes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Rng } from './rng.js';

export type PowerCutMode = 'last-flush' | 'reorder';

export type PowerCutOptions = {
  mode: PowerCutMode;
  /** The worker's flushes do nothing (the shim swallows them): the harness must find violations. */
  noFlush?: boolean;
};

export type RebuildFigures = { writes: number; durableWrites: number; unflushedPiecesKept: number; unflushedPiecesDropped: number; flushes: number };

const here = dirname(fileURLToPath(import.meta.url));
const PIECE_BYTES = 4096;

/** Compiles the shim with cc once per source change; returns the .so path. */
export function buildPowerCutShim(): string {
  const source = join(here, 'powercut-shim.c');
  const outdir = resolve(here, '../../../node_modules/.cache/edgetable-reliability');
  const out = join(outdir, 'libpowercut.so');
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs) return out;
  mkdirSync(outdir, { recursive: true });
  execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-shared', '-fPIC', '-o', out, source, '-ldl', '-lpthread'], { stdio: 'pipe' });
  return out;
}

/** The environment that makes a child journal its writes to `target` into `journal`. */
export function shimEnvironment(shim: string, target: string, journal: string, options: PowerCutOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LD_PRELOAD: [shim, process.env.LD_PRELOAD].filter(Boolean).join(' '),
    POWERCUT_TARGET: resolve(target),
    POWERCUT_JOURNAL: journal,
    // libuv may submit file I/O through io_uring, which no preloaded library sees.
    UV_USE_IO_URING: '0',
  };
  if (options.noFlush) env.POWERCUT_NOFLUSH = '1';
  else delete env.POWERCUT_NOFLUSH;
  return env;
}

type Record = { kind: 'W' | 'S'; seq: number; offset: number; data: Buffer } | { kind: 'T'; seq: number; length: number } | { kind: 'F'; covers: number };

function parseJournal(journal: Buffer): Record[] {
  const records: Record[] = [];
  let at = 0;
  while (at < journal.length) {
    const kind = String.fromCharCode(journal[at]!);
    if (kind === 'W' || kind === 'S') {
      if (at + 21 > journal.length) break; // the kill can cut the last record short
      const seq = Number(journal.readBigUInt64LE(at + 1));
      const offset = Number(journal.readBigUInt64LE(at + 9));
      const length = journal.readUInt32LE(at + 17);
      if (at + 21 + length > journal.length) break;
      records.push({ kind, seq, offset, data: journal.subarray(at + 21, at + 21 + length) });
      at += 21 + length;
    } else if (kind === 'F') {
      if (at + 9 > journal.length) break;
      records.push({ kind, covers: Number(journal.readBigUInt64LE(at + 1)) });
      at += 9;
    } else if (kind === 'T') {
      if (at + 17 > journal.length) break;
      records.push({ kind, seq: Number(journal.readBigUInt64LE(at + 1)), length: Number(journal.readBigUInt64LE(at + 9)) });
      at += 17;
    } else {
      throw new Error(`power-cut journal: unknown record ${JSON.stringify(kind)} at byte ${at}`);
    }
  }
  return records;
}

/** The data file after a power cut: `before` (durable at the cycle's start) plus what survives of the journal. */
export function rebuildImage(before: Buffer, journalPath: string, mode: PowerCutMode, rng: Rng): { image: Buffer; figures: RebuildFigures } {
  const records = existsSync(journalPath) ? parseJournal(readFileSync(journalPath)) : [];
  let covered = 0;
  const figures: RebuildFigures = { writes: 0, durableWrites: 0, unflushedPiecesKept: 0, unflushedPiecesDropped: 0, flushes: 0 };
  for (const r of records) {
    if (r.kind === 'F') {
      covered = Math.max(covered, r.covers);
      figures.flushes += 1;
    }
  }
  let image = Buffer.from(before);
  const place = (offset: number, data: Buffer): void => {
    const end = offset + data.length;
    if (end > image.length) {
      const grown = Buffer.alloc(end);
      image.copy(grown);
      image = grown;
    }
    data.copy(image, offset);
  };
  for (const r of records) {
    if (r.kind === 'F') continue;
    if (r.kind === 'T') {
      if (r.seq < covered) image = r.length <= image.length ? image.subarray(0, r.length) : Buffer.concat([image, Buffer.alloc(r.length - image.length)]);
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
  return { image, figures };
}
