/**
 * Who may read a store's files: the folder 0700 and every file edgetable makes in it 0600 under
 * any umask, a group given access through `fileMode` or the folder's own group bits, never others.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../src/storage/storage-error.js';
import { Store } from '../../src/storage/store.js';
import { type FileMode, folderModeFor, setMode } from '../../src/storage/file-modes.js';
import { currentPidNamespace } from '../../src/storage/pid-namespace.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();

let umask: number;
beforeAll(() => {
  umask = process.umask(0o022); // the usual one, under which LMDB alone makes 0644 files
});
afterAll(() => {
  process.umask(umask);
});

const mode = (path: string): number => statSync(path).mode & 0o777;
const octal = (value: number): string => `0${value.toString(8)}`;

/** Every entry of the folder with its mode, e.g. { '.': '0700', 'data.mdb': '0600' }. */
function modes(dir: string): Record<string, string> {
  const found: Record<string, string> = { '.': octal(mode(dir)) };
  for (const name of readdirSync(dir)) found[name] = octal(mode(join(dir, name)));
  return found;
}

function writeSome(store: Store, n = 10): void {
  const db = store.database('items');
  store.write((txn) => {
    for (let i = 0; i < n; i++) txn.put(db, Buffer.from(`key-${i}`), Buffer.alloc(100, i));
  });
}

describe('store file modes', () => {
  it('makes a new store folder 0700 and its files (data, lock, writer registration, namespace marker, open mark) 0600, whatever the umask lets through', () => {
    const path = join(temp.dir(), 'db');
    writeSome(temp.open({ path }));
    expect(modes(path)).toEqual({
      '.': '0700',
      'data.mdb': '0600',
      'lock.mdb': '0600',
      [`redo.writer-${process.pid}`]: '0600',
      [`pidns-${currentPidNamespace()}-${process.pid}`]: '0600',
      [`open.${process.pid}`]: '0600',
    });
  });

  it("makes redo log files and the folder's claim 0600 ('log' stores), each generation's too", () => {
    const path = join(temp.dir(), 'db');
    const store = temp.open({ path, durability: 'log', checkpoint: { commits: 2, bytes: 1 << 30, pages: 1 << 30 } });
    for (let i = 0; i < 8; i++) writeSome(store);
    const found = modes(path);
    expect(Object.keys(found)).toEqual(expect.arrayContaining(['redo.owner', 'redo-a.log', 'redo-b.log']));
    for (const [name, value] of Object.entries(found)) expect(value, name).toBe(name === '.' ? '0700' : '0600');
  });

  it('gives a copy the store\'s access, not LMDB\'s 0666 less the umask', async () => {
    const store = temp.open();
    writeSome(store);
    const target = join(temp.dir(), 'copy');
    mkdirSync(target, { mode: 0o700 });
    await store.copyTo(target);
    expect(mode(join(target, 'data.mdb'))).toBe(0o600);
  });

  it.each<[FileMode, string, string]>([
    [0o640, '0750', '0640'],
    [0o660, '0770', '0660'],
    [0o600, '0700', '0600'],
  ])('fileMode %o shares with the group: folder %s, files %s', (fileMode, folder, files) => {
    const path = join(temp.dir(), 'db');
    writeSome(temp.open({ path, fileMode, durability: 'log' }));
    const found = modes(path);
    expect(found['.']).toBe(folder);
    for (const [name, value] of Object.entries(found)) if (name !== '.') expect(value, name).toBe(files);
    expect(octal(folderModeFor(fileMode))).toBe(folder);
  });

  it('brings an existing folder to fileMode when given, keeping its setgid bit', () => {
    const path = join(temp.dir(), 'db');
    temp.open({ path }).close();
    chmodSync(path, 0o2755);
    temp.open({ path, fileMode: 0o640 });
    expect(statSync(path).mode & 0o7777).toBe(0o2750);
    expect(mode(join(path, 'data.mdb'))).toBe(0o640);
  });

  it("without fileMode takes others' access away from a store an older build made 0755/0644, keeping the group's", () => {
    const path = join(temp.dir(), 'db');
    temp.open({ path }).close();
    chmodSync(path, 0o755);
    for (const name of ['data.mdb', 'lock.mdb']) chmodSync(join(path, name), 0o644);
    temp.open({ path });
    expect(modes(path)).toEqual({
      '.': '0750',
      'data.mdb': '0640',
      'lock.mdb': '0640',
      [`redo.writer-${process.pid}`]: '0640',
      [`pidns-${currentPidNamespace()}-${process.pid}`]: '0640',
      [`open.${process.pid}`]: '0640',
    });
  });

  it("keeps a group's access its owner gave the folder after the fact (chmod -R g+rwX), for files made later too", () => {
    const path = join(temp.dir(), 'db');
    temp.open({ path }).close();
    chmodSync(path, 0o770);
    for (const name of ['data.mdb', 'lock.mdb']) chmodSync(join(path, name), 0o660);
    writeSome(temp.open({ path, durability: 'log' }));
    for (const [name, found] of Object.entries(modes(path))) expect(found, name).toBe(name === '.' ? '0770' : '0660');
  });

  it('changes nothing on a read-only open', () => {
    const path = join(temp.dir(), 'db');
    temp.open({ path }).close();
    chmodSync(path, 0o755);
    chmodSync(join(path, 'data.mdb'), 0o644);
    temp.open({ path, readOnly: true });
    expect(mode(path)).toBe(0o755);
    expect(mode(join(path, 'data.mdb'))).toBe(0o644);
  });

  it.each([0o644, 0o666, 0o700, 420, '0600'])('refuses fileMode %s and creates nothing', (fileMode) => {
    const path = join(temp.dir(), 'db');
    const failed = (() => {
      try {
        Store.open({ path, fileMode: fileMode as FileMode });
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    expect(failed).toBeInstanceOf(StorageError);
    expect((failed as StorageError).code).toBe('INVALID');
    expect((failed as StorageError).message).toMatch(/fileMode .* is not one of 0600, 0640, 0660/);
    expect(existsSync(path)).toBe(false);
  });

  it.skipIf(process.getuid?.() === 0)('leaves a file it does not own as its owner set it, as a group writer must', () => {
    const owned = '/etc/hostname'; // root's, and readable by all: this (non-root) process cannot chmod it
    const before = mode(owned);
    expect(() => setMode(owned, 0o600)).not.toThrow();
    expect(mode(owned)).toBe(before);
  });
});
