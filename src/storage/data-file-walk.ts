/**
 * page-walk.ts over a data.mdb on disk: its pages read with pread (never mapped), the snapshot
 * chosen by its meta page. Nothing here can crash on a damaged file; a meta page LMDB would not
 * open is a StorageError('CORRUPT').
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_FILE } from './data-file-check.js';
import { newestMeta, readMetaPages, type MetaPage } from './meta-pages.js';
import { parseDbRecord, walkStore, type EntryVisitor, type PageSource, type WalkReport } from './page-walk.js';
import { StorageError, toStorageError } from './storage-error.js';

/** Offsets in MetaPage.bytes: mm_dbs[FREE_DBI] and mm_dbs[MAIN_DBI] (meta-pages.ts has the layout). */
const FREE_DB_OFFSET = 16 + 24;
const MAIN_DB_OFFSET = FREE_DB_OFFSET + 48;

/** Host facts the walk's layout assumes; a reason it cannot run here, or null. */
export function walkUnsupportedHere(): string | null {
  if (process.arch !== 'x64' && process.arch !== 'arm64' && process.arch !== 'ppc64' && process.arch !== 's390x' && process.arch !== 'riscv64' && process.arch !== 'loong64') {
    return `the page walk reads 64-bit LMDB files; this is a ${process.arch} process`;
  }
  return null;
}

function fileSource(fd: number, pageSize: number, lastPage: number): PageSource {
  const size = fstatSync(fd).size;
  return {
    pageSize,
    lastPage,
    read(pgno, count = 1) {
      const at = pgno * pageSize;
      if (at >= size) return null;
      const page = Buffer.allocUnsafe(Math.min(count * pageSize, size - at));
      const read = readSync(fd, page, 0, page.length, at);
      return page.subarray(0, read);
    },
  };
}

/**
 * Walks the data file of the store folder `path` at the snapshot of `pick` (default: the newest
 * meta page, the one LMDB opens with). `pick` returns null when the snapshot it wants is not there
 * (store-check-child.ts pins a snapshot and asks again).
 */
export function walkDataFile(path: string, onEntry: EntryVisitor | null = null, pick: (pages: [MetaPage, MetaPage]) => MetaPage | null = newestMeta): WalkReport | null {
  const unsupported = walkUnsupportedHere();
  if (unsupported !== null) throw new StorageError('INVALID', unsupported);
  let fd: number;
  try {
    fd = openSync(join(path, DATA_FILE), 'r');
  } catch (err) {
    throw toStorageError(err, `walk store ${path}`);
  }
  try {
    const meta = pick(readMetaPages(fd));
    if (meta === null) return null;
    const bytes = Buffer.from(meta.bytes);
    if (meta.lastPage > BigInt(Number.MAX_SAFE_INTEGER)) throw new StorageError('CORRUPT', `meta page ${meta.slot} names last page ${meta.lastPage}`);
    const source = fileSource(fd, meta.pageSize, Number(meta.lastPage));
    return walkStore(source, { free: parseDbRecord(bytes, FREE_DB_OFFSET), main: parseDbRecord(bytes, MAIN_DB_OFFSET), txnId: meta.txnid }, onEntry);
  } finally {
    closeSync(fd);
  }
}

/** Whether a walk found no damage. Unreachable pages alone are not damage (a leak wastes space, LMDB never reads them). */
export function isClean(report: WalkReport): boolean {
  return report.databases.every((db) => db.damage.length === 0);
}
