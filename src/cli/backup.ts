/**
 * Backups of a live store: LMDB's environment copy (Store.copyTo: one read snapshot, compacted,
 * in a child process, while writers of any process go on), then the copy is opened and checked
 * before it is called a backup. A backup folder holds:
 *
 *   <out>/data.mdb      the store's data file (open it with `--path <out>` like any store)
 *   <out>/backup.json   { "format": 1, "createdAt": ISO time, "source": absolute store path,
 *                         "bytes": size of data.mdb, "tables": { name: item count } }
 *
 * Checked means: every table's items counted by a full Scan equal its ItemCount, and every
 * secondary index equals its recomputation (verify). Every write acknowledged before the backup
 * started is in it (the snapshot is taken after); writes made during it may or may not be.
 *
 * Restore copies data.mdb into a staging folder beside the store, checks it there (structure,
 * counts, indexes) and only then renames it into place, so a crash leaves the old file or the new
 * one and a damaged backup leaves the store untouched; it refuses a folder that already holds a
 * store unless forced, and a store another process has open in any case. Backup first checks the
 * store's structure (in a child process): LMDB's copy would follow a damaged page's pointers.
 */
import { discardRedoLog } from '../storage/redo-log.js';
import { fileModeIn, prepareStoreFolder, setMode, settleFileModes } from '../storage/file-modes.js';
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { open, type Edgetable } from '../edgetable.js';
import { CliError, type CliIo } from './cli-io.js';
import { startProgress } from './progress.js';
import { checkStore as checkStructure } from '../storage/store-check.js';
import { copyInChild } from '../storage/copy-in-child.js';
import { describeDamage } from '../storage/store-check-report.js';
import { itemCount, scannedItemCount } from './with-db.js';

export const BACKUP_MANIFEST = 'backup.json';
const DATA_FILE = 'data.mdb';
const LOCK_FILE = 'lock.mdb';
const COPY_POLL_MS = 200;

export type BackupManifest = {
  readonly format: 1;
  readonly createdAt: string;
  readonly source: string;
  readonly bytes: number;
  readonly tables: Record<string, number>;
};

export async function backupStore(storePath: string, outDir: string, io: CliIo): Promise<BackupManifest> {
  if (existsSync(outDir) && readdirSync(outDir).length > 0) throw new CliError('BackupError', `${outDir} is not empty: back up into a new or empty folder`);
  // LMDB's copy follows every page pointer of the store: a damaged page would crash this process
  // and leave a partial data.mdb behind. So the store is checked first (in a child process).
  await refuseIfDamaged(storePath, 'BackupError', 'nothing was copied');
  const created = !existsSync(outDir);
  prepareStoreFolder(outDir, fileModeIn(storePath)); // who may read the store may read its backup, nobody else
  try {
    const createdAt = new Date().toISOString();
    const source = open({ path: storePath, readOnly: true });
    try {
      const used = source.store.stats().usedBytes;
      const progress = startProgress(io, 'backup', { unit: 'bytes', total: used });
      const copied = (): number => (existsSync(join(outDir, DATA_FILE)) ? statSync(join(outDir, DATA_FILE)).size : 0);
      const timer = setInterval(() => progress.update(copied()), COPY_POLL_MS);
      try {
        await copyInChild(storePath, outDir); // LMDB's copy follows every pointer: off this process
      } finally {
        clearInterval(timer);
      }
      progress.end(copied());
    } finally {
      source.close();
    }
    const tables = checkStore(outDir, io, 'check backup');
    rmSync(join(outDir, LOCK_FILE), { force: true }); // made by the check's open; not part of a backup
    const manifest: BackupManifest = { format: 1, createdAt, source: resolve(storePath), bytes: statSync(join(outDir, DATA_FILE)).size, tables };
    writeFileSync(join(outDir, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    setMode(join(outDir, BACKUP_MANIFEST), fileModeIn(outDir));
    return manifest;
  } catch (err) {
    // No half backup: a retry into the same folder must not be refused as "not empty".
    for (const file of [DATA_FILE, LOCK_FILE, BACKUP_MANIFEST]) rmSync(join(outDir, file), { force: true });
    if (created) rmSync(outDir, { recursive: true, force: true });
    throw err;
  }
}

/** The structural check (storage/store-check.ts) of a store folder; damage refuses the command. */
async function refuseIfDamaged(path: string, error: string, consequence: string): Promise<void> {
  if (!existsSync(join(path, DATA_FILE))) return;
  const result = await checkStructure(path);
  if (result.outcome !== 'damaged') return;
  throw new CliError(error, `${path} is damaged (${describeDamage(result).join('; ')}); ${consequence}. See \`edgetable verify --deep\` and \`edgetable salvage\` (docs/reliability.md)`);
}

export type RestoreResult = { readonly tables: Record<string, number>; readonly manifest?: BackupManifest };

export async function restoreStore(fromDir: string, storePath: string, force: boolean, io: CliIo): Promise<RestoreResult> {
  const backupFile = join(fromDir, DATA_FILE);
  if (!existsSync(backupFile)) throw new CliError('RestoreError', `${fromDir} holds no backup (no ${DATA_FILE})`);
  const manifest = readManifest(fromDir);
  const target = join(storePath, DATA_FILE);
  if (existsSync(target)) {
    if (!force) throw new CliError('RestoreError', `${storePath} already holds a store: restore into an empty folder, or add --force to replace it`);
    try {
      discardRedoLog(storePath); // a crashed 'log' process's log must not be replayed over the restored store
    } catch (err) {
      throw new CliError('RestoreError', `${storePath} is open in another process: stop it before restoring (${(err as Error).message})`);
    }
    refuseIfOpen(storePath);
  }
  // The backup is checked in a staging folder beside the store before it replaces anything: a
  // damaged or short backup leaves the store as it was.
  prepareStoreFolder(storePath, undefined);
  const staging = `${resolve(storePath)}.restoring-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  prepareStoreFolder(staging, fileModeIn(storePath));
  let tables: Record<string, number>;
  try {
    copyFileSync(backupFile, join(staging, DATA_FILE));
    setMode(join(staging, DATA_FILE), fileModeIn(storePath)); // the store's access, not the backup's
    flush(join(staging, DATA_FILE));
    await refuseIfDamaged(staging, 'RestoreError', `${storePath} was left as it was`);
    try {
      tables = checkStore(staging, io, 'check restore');
      if (manifest) {
        for (const [name, count] of Object.entries(manifest.tables)) {
          if (tables[name] !== count) throw new CliError('RestoreError', `table ${name}: the backup has ${tables[name] ?? 'no'} items, its manifest recorded ${count}`);
        }
      }
    } catch (err) {
      throw new CliError('RestoreError', `${(err as Error).message}; ${storePath} was left as it was`);
    }
    rmSync(join(storePath, LOCK_FILE), { force: true });
    renameSync(join(staging, DATA_FILE), target);
    flush(storePath);
    settleFileModes(storePath, [LOCK_FILE]);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { tables, ...(manifest && { manifest }) };
}

/**
 * Opens the store read-only and checks it: each table's Scan count equals its ItemCount, every
 * index equals its recomputation. Returns the item count of each table.
 */
function checkStore(path: string, io: CliIo, label: string): Record<string, number> {
  const db = open({ path, readOnly: true });
  try {
    const names = db.context.catalog.names();
    const progress = startProgress(io, label, { unit: 'tables', total: names.length });
    const tables: Record<string, number> = {};
    for (const [i, name] of names.entries()) {
      const counted = scannedItemCount(db, name);
      const recorded = itemCount(db, name);
      if (counted !== recorded) throw new CliError('BackupError', `${path}: table ${name} has ${counted} items but records ItemCount ${recorded}`);
      const { Differences } = db.verify(name);
      if (Differences > 0) throw new CliError('BackupError', `${path}: table ${name}: ${Differences} index entries differ from their recomputation`);
      tables[name] = counted;
      progress.update(i + 1);
    }
    progress.end(names.length);
    return tables;
  } finally {
    db.close();
  }
}


function readManifest(dir: string): BackupManifest | undefined {
  if (!existsSync(join(dir, BACKUP_MANIFEST))) return undefined;
  const manifest = JSON.parse(readFileSync(join(dir, BACKUP_MANIFEST), 'utf8')) as BackupManifest;
  if (manifest.format !== 1) throw new CliError('RestoreError', `${join(dir, BACKUP_MANIFEST)}: unknown backup format ${String(manifest.format)}`);
  return manifest;
}

/**
 * A store another process has open must not have its file replaced under it. Every edgetable
 * process keeps one LMDB reader slot while it has a store open, and stats().readers counts the
 * slots of live processes (reader-table.ts), so more than our own means another process has it
 * open. Where the table cannot be read it is LMDB's high-water mark of slots, which errs on refusing.
 */
function refuseIfOpen(storePath: string): void {
  const db = open({ path: storePath, readOnly: true });
  try {
    db.store.read(() => undefined);
    const readers = db.store.stats().readers;
    if (readers > 1) throw new CliError('RestoreError', `${storePath} is open in another process: stop it before restoring`);
  } finally {
    db.close();
  }
}

function flush(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
