/**
 * One store folder, one PID namespace: an open from another namespace than a live opener's (two
 * containers on one volume, whose pids LMDB's reader table would confuse) is refused with an
 * explanation; a marker left by a killed container lapses after its lease.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PID_NAMESPACE_LEASE_MS, currentPidNamespace, isLiveMarker, joinPidNamespace } from '../../src/storage/pid-namespace.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { Store } from '../../src/storage/store.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();
const OTHER = '4026539999'; // no namespace of this machine's processes
const markersIn = (dir: string): string[] => readdirSync(dir).filter((name) => name.startsWith('pidns-'));

function refusal(open: () => unknown): StorageError {
  try {
    open();
  } catch (err) {
    if (err instanceof StorageError) return err;
    throw err;
  }
  throw new Error('the open was not refused');
}

/** A store folder with a marker of namespace OTHER, renewed `ageMs` ago. */
function foreignMarker(ageMs: number): { path: string; marker: string } {
  const path = join(temp.dir(), 'db');
  temp.open({ path }).close();
  const marker = join(path, `pidns-${OTHER}-1`);
  writeFileSync(marker, '');
  const at = new Date(Date.now() - ageMs);
  utimesSync(marker, at, at);
  return { path, marker };
}

describe('the PID namespace of a store folder', () => {
  it('is the inode of /proc/self/ns/pid', () => {
    expect(currentPidNamespace()).toBe(/^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))![1]);
  });

  it('is announced by every open, read-only ones too, and withdrawn at close', () => {
    const path = join(temp.dir(), 'db');
    const store = temp.open({ path });
    const own = `pidns-${currentPidNamespace()}-${process.pid}`;
    expect(markersIn(path)).toEqual([own]);
    store.close();
    expect(markersIn(path)).toEqual([]);
    const reader = temp.open({ path, readOnly: true });
    expect(markersIn(path)).toEqual([own]);
    reader.close();
    expect(markersIn(path)).toEqual([]);
  });

  it('refuses an open, writable or read-only, while a process of another namespace has the folder open, and changes nothing', () => {
    const { path, marker } = foreignMarker(1000);
    const before = readdirSync(path).sort();
    for (const readOnly of [false, true]) {
      const err = refusal(() => Store.open({ path, readOnly }));
      expect(err.code).toBe('BUSY');
      expect(err.message).toMatch(
        new RegExp(`^store ${path} is open in another PID namespace \\(namespace ${OTHER}, its process 1; this process is in \\d+\\), e\\.g\\. another container on the same volume: .* run both in one PID namespace \\(docker --pid container:<name>\\); if that process is gone, its marker ${marker} lapses (29|30) s from now, or remove it$`),
      );
      expect(readdirSync(path).sort()).toEqual(before);
    }
  });

  it('opens once the other namespace\'s marker lapsed (its container was killed), removing it', () => {
    const { path, marker } = foreignMarker(PID_NAMESPACE_LEASE_MS + 1000);
    const store = temp.open({ path });
    expect(existsSync(marker)).toBe(false);
    expect(markersIn(path)).toEqual([`pidns-${currentPidNamespace()}-${process.pid}`]);
    store.close();
  });

  it('shares the folder with live processes of its own namespace and removes dead ones\' markers', () => {
    const path = join(temp.dir(), 'db');
    temp.open({ path }).close();
    const ns = currentPidNamespace()!;
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(join(path, `pidns-${ns}-${process.ppid}`), ''); // the test runner's parent: alive
    writeFileSync(join(path, `pidns-${ns}-${dead}`), '');
    temp.open({ path });
    expect(markersIn(path).sort()).toEqual([`pidns-${ns}-${process.pid}`, `pidns-${ns}-${process.ppid}`].sort());
  });

  it('judges markers: its own namespace by the pid, another by the lease', () => {
    const now = 1_000_000;
    const marker = (namespace: string, pid: number, ageMs: number) => ({ name: '', namespace, pid, mtimeMs: now - ageMs });
    expect(isLiveMarker(marker('1', 42, 10 * PID_NAMESPACE_LEASE_MS), '1', now, () => true)).toBe(true);
    expect(isLiveMarker(marker('1', 42, 0), '1', now, () => false)).toBe(false);
    expect(isLiveMarker(marker('2', 42, PID_NAMESPACE_LEASE_MS - 1), '1', now, () => false)).toBe(true);
    expect(isLiveMarker(marker('2', 42, PID_NAMESPACE_LEASE_MS), '1', now, () => true)).toBe(false);
  });

  it('does not check where there is no namespace to read (no procfs)', () => {
    const { path } = foreignMarker(0);
    const membership = joinPidNamespace(path, null);
    membership.leave();
    expect(markersIn(path)).toEqual([`pidns-${OTHER}-1`]);
  });

  // A real second namespace: unshare(1) makes one where the kernel lets this user (root, or
  // unprivileged user namespaces with --map-root-user); skipped where it cannot.
  const unshare = spawnSync('unshare', ['--pid', '--fork', 'true'], { timeout: 10_000 }).status === 0 ? ['--pid', '--fork'] : spawnSync('unshare', ['--user', '--map-root-user', '--pid', '--fork', 'true'], { timeout: 10_000 }).status === 0 ? ['--user', '--map-root-user', '--pid', '--fork'] : null;
  it.skipIf(unshare === null)('refuses a process of a real second PID namespace (unshare --pid) while it holds the store, and opens once it closed', async () => {
    const path = join(temp.dir(), 'db');
    temp.open({ path }).close();
    const holderScript = fileURLToPath(new URL('./fixtures/log-holder.ts', import.meta.url));
    const holder = spawn('unshare', [...unshare!, process.execPath, '--import', 'tsx', holderScript, path, 'sync'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buffered = '';
    holder.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      lines.push(...parts);
    });
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    const seen = async (line: string): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while (!lines.includes(line)) {
        if (Date.now() > deadline || holder.exitCode !== null) throw new Error(`the holder did not say ${line}: ${lines.join(' | ')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    try {
      await seen('ready logging=false');
      const theirs = markersIn(path);
      expect(theirs).toHaveLength(1);
      expect(theirs[0]).not.toMatch(new RegExp(`^pidns-${currentPidNamespace()}-`));
      const err = refusal(() => Store.open({ path }));
      expect(err.code).toBe('BUSY');
      expect(err.message).toContain('is open in another PID namespace');
      holder.stdin.end('close\n');
      await seen('closed');
      await exited;
      expect(markersIn(path)).toEqual([]);
      temp.open({ path });
    } finally {
      holder.kill('SIGKILL');
    }
  }, 60_000);
});
