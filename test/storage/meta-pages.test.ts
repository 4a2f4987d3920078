import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEnv, openCursor, type LmdbDbi, type LmdbEnv, type LmdbTxn } from '../../src/storage/lmdb-binding.js';
import { META_BYTES, newestMeta, parseMeta, readMetaPages, restoreMeta, type MetaPage } from '../../src/storage/meta-pages.js';
import { StorageError } from '../../src/storage/storage-error.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-meta-'));
  dirs.push(dir);
  return dir;
}

function openEnv(path: string, noSync: boolean): { env: LmdbEnv; dbi: LmdbDbi } {
  const env = createEnv();
  env.open({ path, mapSize: 64 * 1024 * 1024, maxDbs: 4, maxReaders: 16, readOnly: false, noMetaSync: false, noSync });
  const dbi = env.openDbi({ name: 'items', create: true, keyIsBuffer: true });
  return { env, dbi };
}

const key = (i: number): Buffer => Buffer.from(`k${String(i).padStart(5, '0')}`);
const value = (round: number, i: number): Buffer => Buffer.alloc(300, `${round}:${i};`);

function putRound(env: LmdbEnv, dbi: LmdbDbi, round: number, count: number): void {
  const txn = env.beginTxn();
  for (let i = 0; i < count; i++) txn.putBinary(dbi, key(i), value(round, i));
  txn.commit();
}

/** Every entry of the database, as text, walked with a cursor (LMDB reads every page of the tree). */
function contents(env: LmdbEnv, dbi: LmdbDbi): string[] {
  const txn = env.beginTxn({ readOnly: true });
  const cursor = openCursor(txn, dbi);
  const out: string[] = [];
  try {
    for (let k = cursor.goToFirst(); k !== null; k = cursor.goToNext()) out.push(`${k.toString()}=${cursor.getCurrentBinary()!.subarray(0, 8).toString()}`);
  } finally {
    cursor.close();
    txn.abort();
  }
  return out;
}

function metaOf(path: string): [MetaPage, MetaPage] {
  const fd = openSync(join(path, 'data.mdb'), 'r');
  try {
    return readMetaPages(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The crash a commit without flushes can leave: data.mdb as the page cache holds it (every later
 * commit's pages and meta pages), copied to a new folder, its pages past the checkpoint's last page
 * zeroed (writes the disk never got), then the checkpoint's meta page written back into both slots.
 */
function crashCopy(path: string, checkpoint: MetaPage): string {
  const copy = join(tempDir(), 'after-crash');
  mkdirSync(copy);
  copyFileSync(join(path, 'data.mdb'), join(copy, 'data.mdb'));
  const fd = openSync(join(copy, 'data.mdb'), 'r+');
  try {
    const from = (Number(checkpoint.lastPage) + 1) * checkpoint.pageSize;
    const size = statSync(join(copy, 'data.mdb')).size;
    if (size > from) writeSync(fd, Buffer.alloc(size - from, 0xee), 0, size - from, from);
    restoreMeta(fd, checkpoint);
  } finally {
    closeSync(fd);
  }
  return copy;
}

describe('meta pages', () => {
  it('reads both slots; the newest is the last commit, in slot txnid & 1', () => {
    const path = tempDir();
    const { env, dbi } = openEnv(path, false);
    for (let round = 0; round < 3; round++) putRound(env, dbi, round, 10);
    const last = BigInt(env.info().lastTxnId);
    env.close();
    const pages = metaOf(path);
    const newest = newestMeta(pages);
    expect(newest.txnid).toBe(last);
    expect(newest.slot).toBe(Number(last & 1n));
    expect(pages[1 - newest.slot]!.txnid).toBe(last - 1n);
    expect(newest.pageSize).toBe(4096);
    expect(newest.bytes.length).toBe(META_BYTES);
  });

  it('refuses bytes that are not an LMDB meta page', () => {
    expect(() => parseMeta(new Uint8Array(META_BYTES), 0)).toThrow(StorageError);
    expect(() => parseMeta(new Uint8Array(10), 1)).toThrow(/need 152/);
  });

  it('restoring a checkpoint pinned by a read txn opens exactly at the checkpoint, whatever came after it', () => {
    const path = tempDir();
    const { env, dbi } = openEnv(path, true);
    for (let round = 0; round < 4; round++) putRound(env, dbi, round, 200);
    const pin: LmdbTxn = env.beginTxn({ readOnly: true });
    const checkpoint = newestMeta(metaOf(path));
    expect(checkpoint.txnid).toBe(BigInt(env.info().lastTxnId));
    const expected = contents(env, dbi);
    // Later commits without flushes: every value rewritten many times, the tree grown.
    for (let round = 4; round < 40; round++) putRound(env, dbi, round, 200 + round * 5);
    expect(contents(env, dbi)).not.toEqual(expected);

    const copy = crashCopy(path, checkpoint);
    pin.abort();
    env.close();
    const after = openEnv(copy, false);
    try {
      expect(BigInt(after.env.info().lastTxnId)).toBe(checkpoint.txnid);
      expect(contents(after.env, after.dbi)).toEqual(expected);
      putRound(after.env, after.dbi, 99, 300); // and it takes new commits
      expect(contents(after.env, after.dbi)).toHaveLength(300);
    } finally {
      after.env.close();
    }
  });

  it('without the pin, the later commits reuse the checkpoint pages and the restored tree is not the checkpoint', () => {
    const path = tempDir();
    const { env, dbi } = openEnv(path, true);
    for (let round = 0; round < 4; round++) putRound(env, dbi, round, 200);
    const checkpoint = newestMeta(metaOf(path));
    const expected = contents(env, dbi);
    for (let round = 4; round < 40; round++) putRound(env, dbi, round, 200 + round * 5);
    const copy = crashCopy(path, checkpoint);
    env.close();
    const after = openEnv(copy, false);
    let seen: string[] | Error;
    try {
      seen = contents(after.env, after.dbi);
    } catch (err) {
      seen = err as Error;
    } finally {
      after.env.close();
    }
    expect(seen).not.toEqual(expected);
  });
});
