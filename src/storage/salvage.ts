/**
 * Salvage: every entry of a damaged store that can still be read, copied into a new store. The
 * damaged file is read with the page walk (data-file-walk.ts: pread, every pointer checked), never
 * through LMDB, so no damage can crash the process; a damaged page loses the entries under it
 * and the walk says which keys bound them. Entries are copied as they are, database by database
 * (tables, indexes, change logs, the catalog); the markers of LMDB's main database are taken
 * over through the store's own calls (format, text values), its write sequence starts afresh.
 */
import { walkDataFile } from './data-file-walk.js';
import type { Damage } from './page-walk.js';
import { StorageError } from './storage-error.js';
import type { Store } from './store.js';
import { STORE_FORMAT_KEY, TEXT_VALUES_KEY, decodeStoreFormat } from './store-format.js';

/** Entries per write txn of the new store. */
const BATCH_ENTRIES = 5000;

export interface SalvagedDatabase {
  readonly name: string;
  readonly copied: number;
  /** What the damaged store's record of the database counted. */
  readonly expected: number;
  /** Hex key bounds of what could not be read: after the last key read, before the next one (null: the tree's start or end). */
  readonly lost: { readonly problem: string; readonly after: string | null; readonly before: string | null }[];
}

export interface SalvageReport {
  readonly databases: SalvagedDatabase[];
  /** The damaged store's main database could not be read whole: its markers or database records may be lost. */
  readonly mainDamaged: boolean;
}

const hex = (key: Buffer | null): string | null => (key === null ? null : key.toString('hex'));
const sameKey = (a: Buffer, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/** Copies what can be read of the store at `damagedPath` into `target` (a new, empty, writable store). */
export function salvageInto(damagedPath: string, target: Store): SalvageReport {
  let batch: [string, Buffer, Buffer][] = [];
  const flush = (): void => {
    const entries = batch;
    batch = [];
    target.write((txn) => {
      for (const [name, key, value] of entries) txn.put(target.database(name), key, value);
    });
  };
  let format = 0;
  let textValues = false;
  const report = walkDataFile(damagedPath, (database, key, value) => {
    if (database === null) {
      if (sameKey(key, STORE_FORMAT_KEY)) format = decodeStoreFormat(value);
      else if (sameKey(key, TEXT_VALUES_KEY)) textValues = true;
      return; // the write sequence (write-sequence.ts) starts afresh in the new store
    }
    batch.push([database, Buffer.from(key), Buffer.from(value)]);
    if (batch.length >= BATCH_ENTRIES) flush();
  });
  if (report === null) throw new StorageError('CORRUPT', `salvage ${damagedPath}: no snapshot to read`);
  if (batch.length > 0) flush();
  target.write((txn) => {
    if (format > 0) target.raiseFormat(txn, format);
    if (textValues) target.markTextValues(txn);
  });
  const lost = (damage: Damage[]): SalvagedDatabase['lost'] => damage.map((d) => ({ problem: d.problem, after: hex(d.after), before: hex(d.before) }));
  const databases: SalvagedDatabase[] = [];
  let mainDamaged = false;
  for (const db of report.databases) {
    if (db.name === null) mainDamaged = db.damage.length > 0;
    if (db.name === null || db.name === '<free pages>') continue;
    databases.push({ name: db.name, copied: db.entries, expected: db.expectedEntries, lost: lost(db.damage) });
  }
  return { databases, mainDamaged };
}
