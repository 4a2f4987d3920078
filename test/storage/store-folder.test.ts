import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StorageError } from '../../src/storage/storage-error.js';
import { Store } from '../../src/storage/store.js';
import type { StoreOptions } from '../../src/storage/store-options.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();

function openError(options: StoreOptions): StorageError {
  try {
    Store.open(options).close();
  } catch (err) {
    expect(err).toBeInstanceOf(StorageError);
    return err as StorageError;
  }
  throw new Error(`${options.path} opened`);
}

describe('Store.open: a path that cannot be a store folder', () => {
  it('a file is INVALID, "a file, not a folder", and is left as it was', () => {
    const file = join(temp.dir(), 'notes.txt');
    writeFileSync(file, 'hello');
    for (const readOnly of [false, true]) {
      const err = openError({ path: file, readOnly });
      expect(err.code).toBe('INVALID');
      expect(err.message).toBe(`open store ${file}: it is a file, not a folder (a store is a folder holding data.mdb and lock.mdb)`);
    }
    expect(readdirSync(join(file, '..'))).toEqual(['notes.txt']);
  });

  it("a store's data.mdb given for its folder names the folder", () => {
    const store = temp.open();
    const path = store.path;
    store.close();
    expect(openError({ path: join(path, 'data.mdb') }).message).toMatch(/it is a file, not a folder .*; give the folder that holds it: .*\/db$/);
  });

  it('a folder under a file is INVALID, naming the file', () => {
    const file = join(temp.dir(), 'plain');
    writeFileSync(file, '');
    const err = openError({ path: join(file, 'a', 'db') });
    expect(err.code).toBe('INVALID');
    expect(err.message).toBe(`open store ${join(file, 'a', 'db')}: cannot create the folder, ${file} is a file`);
  });
});

describe('Store.open with readOnly: an existing store only', () => {
  it('no folder, or a folder without data.mdb, is NOT_FOUND, and nothing is created', () => {
    const dir = temp.dir();
    const missing = join(dir, 'nope');
    const err = openError({ path: missing, readOnly: true });
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toBe(`open store ${missing}: no such folder (readOnly opens an existing store)`);
    expect(existsSync(missing)).toBe(false);
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(openError({ path: empty, readOnly: true })).toMatchObject({ code: 'NOT_FOUND', message: `open store ${empty}: no store in this folder (no data.mdb; readOnly opens an existing store)` });
    expect(readdirSync(empty)).toEqual([]);
  });
});

// Permission is only testable for a user the kernel checks: as root, the test runs as nobody,
// which needs setpriv and a checkout nobody may read (not one inside a private temp folder).
const storeSource = fileURLToPath(new URL('../../src/storage/store.ts', import.meta.url));
const asNobody =
  process.getuid?.() === 0 &&
  spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-c', 'test -r "$1"', 'sh', storeSource]).status === 0;
describe.skipIf(!asNobody)('Store.open by a user who may not write the folder (run as nobody)', () => {
  it('a writable open and a readOnly one are IO errors saying what LMDB needs to write', () => {
    const store = temp.open();
    const path = store.path;
    store.close();
    chmodSync(join(path, '..'), 0o755);
    chmodSync(path, 0o755);
    for (const name of ['data.mdb', 'lock.mdb']) chmodSync(join(path, name), 0o644);
    const script = `
      const { Store } = await import(${JSON.stringify(storeSource)});
      const out = [];
      for (const readOnly of [false, true]) {
        try { Store.open({ path: ${JSON.stringify(path)}, readOnly }).close(); out.push('opened'); }
        catch (err) { out.push(err.code + ': ' + err.message); }
      }
      console.log(JSON.stringify(out));`;
    const run = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, HOME: '/tmp' } });
    expect(run.stderr).toBe('');
    const [writable, readOnly] = JSON.parse(run.stdout.trim()) as string[];
    expect(writable).toBe(`IO: open store ${path}: this user may not write in the folder (EACCES); a writable open writes data.mdb, lock.mdb and the redo log there`);
    expect(readOnly).toMatch(new RegExp(`^IO: open store ${path}: this user may not write data.mdb, and LMDB opens data.mdb and lock.mdb for writing even to read`));
  });
});
