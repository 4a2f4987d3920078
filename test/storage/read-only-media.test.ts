import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/storage/store.js';
import { damages, writeStore } from './fixtures/damaged-store.js';

const fixture = fileURLToPath(new URL('./fixtures/read-only-media.ts', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/**
 * A read-only mount needs root's CAP_SYS_ADMIN in a private mount namespace (unshare -m): the
 * bind mount is seen by the child alone and goes with it. chmod cannot stand in for it here:
 * root writes through any mode, and a read-only file system answers EROFS, not EACCES.
 */
function canMountReadOnly(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = tempDir('edgetable-ro-probe-');
  const run = spawnSync('unshare', ['-m', 'sh', '-c', `mount --bind "${dir}" "${dir}" && mount -o remount,bind,ro "${dir}" && ! touch "${dir}/x" 2>/dev/null`], { timeout: 10_000 });
  return run.status === 0;
}
const readOnlyMounts = canMountReadOnly();

/** Runs the fixture with `mount` made a read-only bind mount of itself, TMPDIR set to `temp`. */
function runOnReadOnlyMount(mount: string, temp: string, mode = 'all'): Record<string, unknown> {
  const script = `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" --import tsx "$3" "$1" "$4"`;
  const out = execFileSync('unshare', ['-m', 'sh', '-c', script, 'sh', mount, process.execPath, fixture, mode], {
    env: { ...process.env, TMPDIR: temp },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
}

describe.skipIf(!readOnlyMounts)('a store on read-only media (a card taken out of a device; needs root for a read-only bind mount)', () => {
  function storeOnCard(): string {
    const mount = tempDir('edgetable-card-');
    const store = Store.open({ path: join(mount, 'db') });
    const db = store.database('items');
    store.write((txn) => {
      txn.put(db, Buffer.from('a'), Buffer.from('1'));
      txn.put(db, Buffer.from('b'), Buffer.from('2'));
    });
    store.close();
    return mount;
  }

  it('opens with readOnly: true from a private copy of data.mdb, removed at close; writes are refused', () => {
    const mount = storeOnCard();
    const temp = tempDir('edgetable-tmp-');
    const result = runOnReadOnlyMount(mount, temp);
    expect(result.items).toEqual(['a=1', 'b=2']);
    expect(result.copiesWhileOpen).toBe(1);
    expect(result.copiesAfterClose).toBe(0);
    expect(result.writeRefused).toBe('READ_ONLY');
    expect(readdirSync(temp).filter((name) => name.startsWith('edgetable-'))).toEqual([]); // (tsx keeps its cache there)
  });

  it('a writable open, or a new store, on the read-only mount is READ_ONLY, saying the file system is read-only', () => {
    const result = runOnReadOnlyMount(storeOnCard(), tempDir('edgetable-tmp-'));
    expect(result.writableOpen).toMatch(/^READ_ONLY: .*on a read-only file system; open it with readOnly: true/);
    expect(result.newStore).toMatch(/^READ_ONLY: .*cannot create the store, .* is on a read-only file system/);
  });

  it('a card pulled from a running device (a stale open mark) is checked on the copy and opens', () => {
    const mount = storeOnCard();
    writeFileSync(join(mount, 'db', 'open.999999'), 'an-earlier-boot\n'); // as a process of the device left it
    const result = runOnReadOnlyMount(mount, tempDir('edgetable-tmp-'));
    expect(result.items).toEqual(['a=1', 'b=2']);
    expect(readdirSync(join(mount, 'db'))).toContain('open.999999'); // nothing on the card changed
  });

  it('a damaged card pulled from a running device is refused as CORRUPT by the check of the copy', () => {
    const mount = tempDir('edgetable-card-');
    writeStore(join(mount, 'db'), 2000);
    damages['zeroed pages'](join(mount, 'db'));
    writeFileSync(join(mount, 'db', 'open.999999'), 'an-earlier-boot\n');
    const temp = tempDir('edgetable-tmp-');
    expect(runOnReadOnlyMount(mount, temp, 'open-only').open).toMatch(/^CORRUPT: /);
    expect(readdirSync(temp).filter((name) => name.startsWith('edgetable-'))).toEqual([]);
  }, 60_000);
});
