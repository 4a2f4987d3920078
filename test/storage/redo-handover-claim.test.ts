/**
 * The claim a process writing with durability 'log' holds on its folder (redo.owner,
 * redo-handover.ts): one live holder at a time, never seen half written, stale claims (a dead pid,
 * an earlier boot, emptied by a power cut) taken over, and a release that drops only this
 * process's own claim.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_FILE, claimOwner, liveOwner, releaseOwner, tryClaimOwner } from '../../src/storage/redo-handover.js';
import { currentBootId } from '../../src/storage/redo-log-file.js';
import { StorageError } from '../../src/storage/storage-error.js';

const contenderScript = fileURLToPath(new URL('./fixtures/claim-contender.ts', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-claim-'));
  dirs.push(dir);
  return dir;
}
const bootId = currentBootId();
/** The pid of a process that has ended (and been reaped). */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString());
}
const claimFiles = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('redo.'));

describe('the claim on a folder written with durability log', () => {
  it('is written whole: the claim names this process and boot, and no private file is left beside it', () => {
    const dir = folder();
    claimOwner(dir, bootId);
    expect(readFileSync(join(dir, OWNER_FILE), 'latin1')).toBe(`${process.pid}\n${bootId}\n`);
    expect(claimFiles(dir)).toEqual([OWNER_FILE]);
    releaseOwner(dir);
    expect(claimFiles(dir)).toEqual([]);
  });

  it("is BUSY while another live process holds it, naming that process; a release leaves another's claim alone", () => {
    const dir = folder();
    writeFileSync(join(dir, OWNER_FILE), `${process.ppid}\n${bootId}\n`);
    expect(liveOwner(dir, bootId)).toBe(process.ppid);
    expect(() => claimOwner(dir, bootId)).toThrow(StorageError);
    expect(() => claimOwner(dir, bootId)).toThrow(new RegExp(`claimed by process ${process.ppid}`));
    expect(tryClaimOwner(dir, bootId)).toBe(false);
    releaseOwner(dir);
    expect(readFileSync(join(dir, OWNER_FILE), 'latin1')).toBe(`${process.ppid}\n${bootId}\n`);
  });

  it.each([
    ['a dead process', () => `${deadPid()}\n${bootId}\n`],
    ['a process of an earlier boot', () => `${process.ppid}\nan-earlier-boot\n`],
    ['emptied by a power cut', () => ''],
  ])('held by %s is stale: taken over', (_what, text) => {
    const dir = folder();
    writeFileSync(join(dir, OWNER_FILE), text());
    expect(liveOwner(dir, bootId)).toBeUndefined();
    claimOwner(dir, bootId);
    expect(readFileSync(join(dir, OWNER_FILE), 'latin1')).toBe(`${process.pid}\n${bootId}\n`);
    expect(claimFiles(dir)).toEqual([OWNER_FILE]);
  });

  it('removes a stale claim even when a process died while removing one (its redo.breaking lock is stale too)', () => {
    const dir = folder();
    const dead = deadPid();
    writeFileSync(join(dir, OWNER_FILE), `${dead}\n${bootId}\n`);
    writeFileSync(join(dir, 'redo.breaking'), `${dead}\n${bootId}\n`);
    claimOwner(dir, bootId);
    expect(readFileSync(join(dir, OWNER_FILE), 'latin1')).toBe(`${process.pid}\n${bootId}\n`);
    expect(claimFiles(dir)).toEqual([OWNER_FILE]);
  });

  it('removes private claims left by processes that died while claiming', () => {
    const dir = folder();
    const dead = deadPid();
    writeFileSync(join(dir, `redo.claim-${dead}`), `${dead}\n${bootId}\n`);
    writeFileSync(join(dir, `redo.claim-${dead}.breaking`), `${dead}\n${bootId}\n`);
    writeFileSync(join(dir, `redo.claim-${process.ppid}`), `${process.ppid}\n${bootId}\n`); // alive: mid-claim
    claimOwner(dir, bootId);
    expect(claimFiles(dir).sort()).toEqual([`redo.claim-${process.ppid}`, OWNER_FILE]);
  });

  it('on a file system without hard links (link fails EPERM) claims by an exclusive create instead', () => {
    const dir = folder();
    const outdir = fileURLToPath(new URL('../../node_modules/.cache/edgetable-storage-tests/', import.meta.url));
    mkdirSync(outdir, { recursive: true });
    const library = join(outdir, `no-hard-links-${process.pid}.so`);
    execFileSync('cc', ['-O2', '-Wall', '-shared', '-fPIC', '-o', library, fileURLToPath(new URL('./fixtures/no-hard-links.c', import.meta.url))], { stdio: 'pipe' });
    const module = fileURLToPath(new URL('../../src/storage/redo-handover.ts', import.meta.url));
    const staleClaim = `${deadPid()}\n${bootId}\n`;
    const script = `
      import { linkSync, readFileSync, writeFileSync } from 'node:fs';
      import { claimOwner, releaseOwner, tryClaimOwner } from ${JSON.stringify(module)};
      const dir = ${JSON.stringify(dir)}, boot = ${JSON.stringify(bootId)};
      writeFileSync(dir + '/a', 'x');
      try { linkSync(dir + '/a', dir + '/b'); process.stdout.write('linked;'); } catch (e) { process.stdout.write(e.code + ';'); }
      claimOwner(dir, boot);
      process.stdout.write(tryClaimOwner(dir, boot) + ';');
      releaseOwner(dir);
      writeFileSync(dir + '/redo.owner', ${JSON.stringify(staleClaim)});
      claimOwner(dir, boot);
      process.stdout.write(readFileSync(dir + '/redo.owner', 'latin1') === process.pid + '\\n' + boot + '\\n' ? 'claimed' : 'not claimed');
    `;
    try {
      const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, LD_PRELOAD: library }, encoding: 'utf8' });
      expect(out).toBe('EPERM;true;claimed');
    } finally {
      rmSync(library, { force: true });
    }
    expect(readdirSync(dir).sort()).toEqual(['a', OWNER_FILE]);
  });

  it('three processes contending, each leaving stale claims behind half the time: never two holders at once', async () => {
    const dir = folder();
    const dead = String(deadPid());
    const outputs = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
            const child = spawn(process.execPath, ['--import', 'tsx', contenderScript, dir, '1500', dead], { stdio: ['ignore', 'pipe', 'pipe'] });
            let out = '';
            let err = '';
            child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
            child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
            const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
            child.once('exit', (code) => {
              clearTimeout(timer);
              resolve({ code, out, err });
            });
          }),
      ),
    );
    for (const { code, out, err } of outputs) {
      expect(out, err).toMatch(/^claims=\d+\n$/);
      expect(code).toBe(0);
      expect(Number(/claims=(\d+)/.exec(out)![1])).toBeGreaterThan(0);
    }
    expect(existsSync(join(dir, 'inside'))).toBe(false);
    expect(claimFiles(dir).filter((name) => name !== OWNER_FILE)).toEqual([]);
  }, 60_000);
});
