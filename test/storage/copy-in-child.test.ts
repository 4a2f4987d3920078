/**
 * LMDB's environment copy in a child process (storage/copy-in-child.ts): an intact store is
 * copied whole; on a damaged store (the structural check skipped, as if the damage came after it)
 * the child fails or crashes and the caller gets a StorageError, never the crash itself.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyInChild } from '../../src/storage/copy-in-child.js';
import { walkDataFile, isClean } from '../../src/storage/data-file-walk.js';
import { damages, writeStore } from './fixtures/damaged-store.js';

let root: string;
let intact: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'edgetable-copy-child-'));
  intact = join(root, 'intact');
  writeStore(intact, 2000);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('copyInChild', () => {
  it('copies an intact store: the copy walks clean with every entry', async () => {
    const out = join(root, 'copy');
    mkdirSync(out);
    await copyInChild(intact, out);
    const copy = walkDataFile(out)!;
    expect(isClean(copy)).toBe(true);
    const entries = (r: typeof copy) => r.databases.filter((db) => db.name !== '<free pages>').map((db) => [db.name, db.entries]);
    expect(entries(copy)).toEqual(entries(walkDataFile(intact)!));
  });

  it.each(['random bytes', 'zeroed pages'] as const)('%s: a StorageError in this process, which goes on', async (damage) => {
    const damaged = join(root, `damaged-${damage}`);
    cpSync(intact, damaged, { recursive: true });
    damages[damage](damaged);
    const out = join(root, `out-${damage}`);
    mkdirSync(out);
    await expect(copyInChild(damaged, out)).rejects.toMatchObject({ name: 'StorageError', code: expect.stringMatching(/^(CORRUPT|IO)$/) });
  });
});
