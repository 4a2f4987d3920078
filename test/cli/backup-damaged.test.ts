/**
 * Issue 45: `backup` of a damaged store used to die of SIGSEGV in LMDB's copy and leave an empty
 * data.mdb in --out (so the retry was refused as "not empty"); `restore` from a damaged copy
 * failed its check after it had replaced the store. Now the structure is checked first, in a
 * child process: backup refuses with nothing left behind, restore leaves the store untouched.
 */
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLE, damages, writeStore } from '../storage/fixtures/damaged-store.js';
import { run, tempDir } from './run-cli.js';

function store(count = 1500): string {
  const path = join(tempDir(), 'db');
  writeStore(path, count);
  return path;
}

describe('backup and restore of a damaged store', () => {
  it('backup refuses a damaged store with exit 1 and leaves no data.mdb in --out; the retry after a repair is not refused', async () => {
    const path = store();
    const good = join(tempDir(), 'good');
    cpSync(path, good, { recursive: true });
    damages['random bytes'](path);
    const out = join(tempDir(), 'backup');
    const r = await run(['backup', '--path', path, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^BackupError: ${path} is damaged \\(t/${TABLE}/(gsi/by-g/)?p/0: .+\\); nothing was copied\\. See \`edgetable verify --deep\``));
    expect(existsSync(out)).toBe(false);
    const retry = await run(['backup', '--path', good, '--out', out]);
    expect(retry).toMatchObject({ code: 0, err: '' });
    expect(readdirSync(out).sort()).toEqual(['backup.json', 'data.mdb']);
  });

  it('restore from a damaged backup refuses before it replaces anything: the old store reads as before', async () => {
    const path = store();
    const out = join(tempDir(), 'backup');
    expect((await run(['backup', '--path', path, '--out', out])).code).toBe(0);
    const before = readFileSync(join(path, 'data.mdb'));
    damages['zeroed pages'](out);
    const r = await run(['restore', '--from', out, '--path', path, '--force']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^RestoreError: .+ is damaged \\(.+\\); ${path} was left as it was\\.`));
    expect(readFileSync(join(path, 'data.mdb')).equals(before)).toBe(true);
    expect(readdirSync(join(path, '..')).filter((name) => name.includes('.restoring-'))).toEqual([]);
    const scan = await run(['scan', TABLE, '--path', path, '--all', '--plain']);
    expect(scan.code).toBe(0);
    expect(scan.out.trim().split('\n')).toHaveLength(1500);
  });
});
