/**
 * The structural check of a store folder, run as its own process (store-check.ts starts it):
 * `node store-check-child.js <folder>`. It walks the data file with pread (data-file-walk.ts),
 * holding an LMDB read txn so that writers of other processes cannot reuse the pages of the
 * snapshot it walks, and prints one JSON line (encodeCheckReport). Exit codes: 0 clean, 1 damage
 * found, 2 could not check. Should anything still crash it, only this process dies: its parent
 * takes a signal as "damaged".
 */
import { walkDataFile, isClean } from './data-file-walk.js';
import { createEnv, type LmdbEnv, type LmdbTxn } from './lmdb-binding.js';
import type { MetaPage } from './meta-pages.js';
import type { WalkReport } from './page-walk.js';
import { StorageError, toStorageError } from './storage-error.js';
import { encodeCheckReport } from './store-check-report.js';

/** Attempts at pinning the newest snapshot while writers keep committing. */
const PIN_ATTEMPTS = 50;

function walkPinned(path: string): WalkReport {
  const env: LmdbEnv = createEnv();
  env.open({ path, mapSize: 0, maxDbs: 1, maxReaders: 126, readOnly: true, noMetaSync: false });
  try {
    for (let attempt = 0; attempt < PIN_ATTEMPTS; attempt++) {
      // Same txn id before and after the begin: the read txn holds that snapshot, whose meta page
      // is still on disk unless two more commits came since (then try again).
      const before = env.info().lastTxnId;
      const txn: LmdbTxn = env.beginTxn({ readOnly: true });
      try {
        if (env.info().lastTxnId !== before) continue;
        const pick = (pages: [MetaPage, MetaPage]): MetaPage | null => pages.find((p) => p.txnid === BigInt(before)) ?? null;
        const report = walkDataFile(path, null, pick);
        if (report !== null) return report;
      } finally {
        txn.abort();
      }
    }
    throw new StorageError('BUSY', `check store ${path}: writers committed through ${PIN_ATTEMPTS} attempts to hold one snapshot`);
  } finally {
    env.close();
  }
}

const path = process.argv[2];
if (path === undefined) {
  process.stderr.write('usage: store-check-child <store folder>\n');
  process.exit(2);
}
try {
  const report = walkPinned(path);
  process.stdout.write(`${encodeCheckReport({ outcome: isClean(report) ? 'clean' : 'damaged', report })}\n`);
  process.exitCode = isClean(report) ? 0 : 1;
} catch (err) {
  const error = toStorageError(err, `check store ${path}`);
  const outcome = error.code === 'CORRUPT' ? 'damaged' : 'failed';
  process.stdout.write(`${encodeCheckReport({ outcome, message: error.message, code: error.code })}\n`);
  process.exitCode = outcome === 'damaged' ? 1 : 2;
}
