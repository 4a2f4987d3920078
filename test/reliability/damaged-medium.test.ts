/**
 * Issue 45: a damaged page never kills the process that opens the store. Each damage a failing
 * medium does (random bytes, zeroed pages, flipped bits in a page's structure, a cut file) is
 * found by the structural check before LMDB reads a page, and the store is refused with
 * StorageError('CORRUPT'), never read as valid data. The check runs at open after an unclean
 * shutdown (default) or always; docs/reliability.md, "Damaged stores".
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { TABLE, damages, writeStore } from '../storage/fixtures/damaged-store.js';

const COUNT = 3000;
const scanChild = join(import.meta.dirname, '..', 'storage', 'fixtures', 'scan-table.ts');
let root: string;
let intact: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'edgetable-medium-'));
  intact = join(root, 'intact');
  writeStore(intact, COUNT);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let copies = 0;
function damagedCopy(damage: keyof typeof damages): string {
  const path = join(root, `copy-${copies++}`);
  cpSync(intact, path, { recursive: true });
  damages[damage](path);
  return path;
}

/** What an unclean shutdown leaves: the mark of a process that is gone (open-marks.ts). */
const leaveStaleMark = (path: string): void => writeFileSync(join(path, 'open.2147483646'), 'an-earlier-boot\n');

function scanInChild(path: string, checkOnOpen: string): { signal: NodeJS.Signals | null; out: { ok: boolean; count?: number; code?: string; message?: string } | null } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', scanChild, path, checkOnOpen, TABLE], { encoding: 'utf8', timeout: 60_000 });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  return { signal: run.signal, out: line.startsWith('{') ? JSON.parse(line) : null };
}

describe('a store damaged before it is opened', () => {
  it.each(Object.keys(damages))('%s: refused at open with CORRUPT (checkOnOpen always), nothing read', (damage) => {
    const path = damagedCopy(damage as keyof typeof damages);
    let thrown: unknown;
    try {
      open({ path, checkOnOpen: 'always' }).close();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ name: 'StorageError', code: 'CORRUPT' });
    expect((thrown as Error).message).toMatch(/the store is damaged \(.+\); it was not opened\. See what is damaged with `edgetable verify --deep/);
  });

  it('the issue reproduction: random bytes, then a full scan after an unclean shutdown: CORRUPT, no crash (was exit 139)', () => {
    const path = damagedCopy('random bytes');
    leaveStaleMark(path);
    const { signal, out } = scanInChild(path, 'unclean');
    expect(signal).toBeNull();
    expect(out).toMatchObject({ ok: false, code: 'CORRUPT' });
    expect(existsSync(join(path, 'open.2147483646'))).toBe(true); // refused: the next open checks again
  });

  it('the intact store opens after an unclean shutdown: checked, the stale mark cleared, every item read', () => {
    const path = join(root, `copy-${copies++}`);
    cpSync(intact, path, { recursive: true });
    leaveStaleMark(path);
    const { signal, out } = scanInChild(path, 'unclean');
    expect(signal).toBeNull();
    expect(out).toEqual({ ok: true, count: COUNT });
    expect(existsSync(join(path, 'open.2147483646'))).toBe(false);
  });

  it('after a clean close the default does not check (the cost is paid after crashes only)', () => {
    const path = join(root, `copy-${copies++}`);
    cpSync(intact, path, { recursive: true });
    const started = Date.now();
    open({ path }).close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(execFileSync('ls', [path], { encoding: 'utf8' })).not.toMatch(/open\./);
  });

  it('a process killed while the store is open leaves its mark; the next open checks', () => {
    const path = join(root, `copy-${copies++}`);
    cpSync(intact, path, { recursive: true });
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { open } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'src', 'edgetable.ts'))}; open({ path: ${JSON.stringify(path)} }); process.kill(process.pid, 'SIGKILL');`], { timeout: 60_000 });
    expect(child.signal).toBe('SIGKILL');
    expect(execFileSync('ls', [path], { encoding: 'utf8' })).toMatch(/open\.\d+/);
    damages['zeroed pages'](path);
    expect(() => open({ path })).toThrow(expect.objectContaining({ code: 'CORRUPT' }));
  });

  it.each([
    ['random bytes', (file: string) => writeFileSync(file, randomBytes(8192))],
    ['cut to 100 bytes', (file: string) => truncateSync(file, 100)],
  ])('lock.mdb damaged (%s) while nobody has the folder open: LMDB rebuilds it, every item reads', (_, damage) => {
    const path = join(root, `copy-${copies++}`);
    cpSync(intact, path, { recursive: true });
    damage(join(path, 'lock.mdb'));
    const { signal, out } = scanInChild(path, 'always');
    expect(signal).toBeNull();
    expect(out).toEqual({ ok: true, count: COUNT });
  });
});
