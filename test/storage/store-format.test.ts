/**
 * The store format marker (src/storage/store-format.ts): absent on a new store (format 1), raised
 * only inside a write txn and only with it, never a database name; a store of a format this build
 * does not know is refused at open, by Store.open and by the engine's open, in every process that
 * opens it at once, and left byte for byte as it was; a process that has the store open when
 * another one raises the format past this build's is stopped at its next write, which writes
 * nothing, and one that raises it to a format this build knows is reported (Store.format) from
 * that write on.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { Store } from '../../src/storage/store.js';
import { STORE_FORMAT_KEY, STORE_FORMAT_VERSION, StoreFormatError, decodeStoreFormat } from '../../src/storage/store-format.js';
import type { Database } from '../../src/storage/database.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { markerOf, setRawFormatMarker } from './fixtures/raw-format-marker.js';
import { hex, text, useTempStores } from './temp-store.js';

const temp = useTempStores();
const markerScript = fileURLToPath(new URL('./fixtures/raw-format-marker.ts', import.meta.url));
const openScript = fileURLToPath(new URL('./fixtures/open-engine.ts', import.meta.url));
const run = promisify(execFile);

/** The marker's bytes in hex, read from LMDB's main database (Store's private catalog handle). */
function markerOfStore(store: Store): string | undefined {
  const main = (store as unknown as { catalog: Database }).catalog;
  return store.read((txn) => hex(txn.getCopy(main, STORE_FORMAT_KEY)));
}

const digest = (path: string) => createHash('sha256').update(readFileSync(join(path, 'data.mdb'))).digest('hex');

/** A closed store folder holding one database with one entry, whose marker says `version`. */
function storeOfFormat(version: number | Uint8Array): string {
  const store = temp.open();
  const path = store.path;
  store.write((txn) => txn.put(store.database('d'), text('k'), text('v')));
  store.close();
  setRawFormatMarker(path, typeof version === 'number' ? markerOf(version) : version);
  return path;
}

function refusal(fn: () => unknown): StoreFormatError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StoreFormatError);
    return err as StoreFormatError;
  }
  throw new Error('expected a StoreFormatError');
}

describe('store format marker', () => {
  it('decodes absent as format 1 and anything but a u32 as unreadable', () => {
    expect(decodeStoreFormat(undefined)).toBe(1);
    expect(decodeStoreFormat(markerOf(2))).toBe(2);
    expect(decodeStoreFormat(Uint8Array.of(0, 2))).toBeNaN();
  });

  it('a new store has none (format 1), and the marker is never listed or counted as a database', () => {
    const store = temp.open();
    const d = store.database('d');
    expect(store.format).toBe(1);
    expect(markerOfStore(store)).toBeUndefined();
    store.write((txn) => store.raiseFormat(txn, 2));
    expect(markerOfStore(store)).toBe('00000002');
    expect(store.listDatabases()).toEqual(['d']);
    expect(store.stats().databases).toBe(1);
    expect(d.name).toBe('d');
  });

  it('is raised with its txn only: an aborted txn leaves none; a lower or equal raise writes nothing', () => {
    const store = temp.open();
    expect(() => store.write((txn) => {
      store.raiseFormat(txn, 2);
      throw new Error('abort');
    })).toThrow('abort');
    expect(markerOfStore(store)).toBeUndefined();
    expect(store.format).toBe(1);
    store.write((txn) => store.raiseFormat(txn, 2));
    expect(store.format).toBe(2);
    const commits = store.stats().commits;
    store.write((txn) => store.raiseFormat(txn, 1));
    store.write((txn) => store.raiseFormat(txn, 2));
    expect(markerOfStore(store)).toBe('00000002');
    expect(store.stats().commits - commits).toBe(2); // two empty txns: nothing changed, nothing bumped
    expect(() => store.write((txn) => store.raiseFormat(txn, STORE_FORMAT_VERSION + 1))).toThrow(StorageError);
  });

  it('an asynchronous commit carries the raise in its replay', async () => {
    const store = temp.open();
    const d = store.database('d');
    await store.writeAsync((txn) => {
      txn.put(d, text('k'), text('v'));
      store.raiseFormat(txn, 2);
    });
    expect(markerOfStore(store)).toBe('00000002');
    expect(store.format).toBe(2);
    expect(store.asyncCommitStats.committed).toBe(1);
  });

  it(`refuses a store of a newer format at open, naming both formats and what to do, and leaves it untouched`, () => {
    const path = storeOfFormat(STORE_FORMAT_VERSION + 1);
    const before = digest(path);
    const error = refusal(() => Store.open({ path }));
    expect(error.code).toBe('FORMAT');
    expect(error.storeFormat).toBe(STORE_FORMAT_VERSION + 1);
    expect(error.supportedFormat).toBe(STORE_FORMAT_VERSION);
    expect(error.message).toContain(`has store format ${STORE_FORMAT_VERSION + 1}; this edgetable reads store formats 1 to ${STORE_FORMAT_VERSION}`);
    expect(error.message).toContain('written by a newer edgetable');
    expect(error.message).toContain('edgetable export');
    refusal(() => Store.open({ path, readOnly: true }));
    // The engine's open refuses before it writes anything (its store identity, the catalog).
    refusal(() => open({ path }));
    expect(digest(path)).toBe(before);
    // The refusal closed what it opened: the folder opens again once its marker is one this build reads.
    setRawFormatMarker(path, markerOf(STORE_FORMAT_VERSION));
    const store = temp.open({ path });
    expect(store.format).toBe(STORE_FORMAT_VERSION);
    expect(store.read((txn) => hex(txn.getCopy(store.database('d'), text('k'))))).toBe(hex(text('v')));
  });

  it('refuses a store whose marker it cannot read', () => {
    const path = storeOfFormat(Uint8Array.of(0, 2));
    const error = refusal(() => Store.open({ path }));
    expect(error.storeFormat).toBeNaN();
    expect(error.message).toContain('unreadable store format marker');
  });

  it('a process that has the store open is refused at its next write once another process raised the format; nothing is written', async () => {
    const store = temp.open();
    const d = store.database('d');
    store.write((txn) => txn.put(d, text('a'), text('1')));
    execFileSync(process.execPath, ['--import', 'tsx', markerScript, store.path, hex(markerOf(STORE_FORMAT_VERSION + 1))!], { stdio: 'pipe', timeout: 30_000 });
    expect(() => store.write((txn) => txn.put(d, text('b'), text('1')))).toThrow(StoreFormatError);
    await expect(store.writeAsync((txn) => txn.put(d, text('c'), text('1')))).rejects.toThrow(StoreFormatError);
    // Reads are not re-checked (see store-format.ts): they see the store as it is.
    expect(store.read((txn) => [txn.get(d, text('a')) !== undefined, txn.get(d, text('b')), txn.get(d, text('c'))])).toEqual([true, undefined, undefined]);
  });

  it('a process that has the store open takes in a format another process raised (one this build knows) at its next write', () => {
    const store = temp.open();
    const d = store.database('d');
    store.write((txn) => txn.put(d, text('a'), text('1')));
    expect(store.format).toBe(1);
    execFileSync(process.execPath, ['--import', 'tsx', markerScript, store.path, hex(markerOf(STORE_FORMAT_VERSION))!], { stdio: 'pipe', timeout: 30_000 });
    store.write((txn) => txn.put(d, text('b'), text('1')));
    expect(store.format).toBe(STORE_FORMAT_VERSION);
    expect(markerOfStore(store)).toBe(hex(markerOf(STORE_FORMAT_VERSION)));
  });

  it('several processes opening a newer store at once all refuse it, and it stays byte for byte as it was', async () => {
    const path = storeOfFormat(STORE_FORMAT_VERSION + 1);
    const before = digest(path);
    const results = await Promise.all([1, 2, 3].map(() => run(process.execPath, ['--import', 'tsx', openScript, path], { timeout: 60_000 })));
    for (const { stdout } of results) {
      expect(JSON.parse(stdout)).toMatchObject({ ok: false, name: 'StoreFormatError', code: 'FORMAT' });
    }
    expect(digest(path)).toBe(before);
  }, 90_000);
});
