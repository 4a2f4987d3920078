/**
 * Reliability: the disk fills up under a running `bridge` process fed by UDP nodes, stays full for
 * a while, then gets space back (an operator deletes a file). The process must stay up, never
 * acknowledge a reading it could not write, and ingest everything once space is back.
 *
 * Needs root and a mount-capable container (a 4 MiB tmpfs); says so and skips otherwise.
 * CI-sized: the disk stays full for 15 s; EDGETABLE_BRIDGE_DISK_FULL_MS lengthens it (60000 for
 * the minute).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readBridgeStatus } from '../../src/bridge/bridge-status.js';
import { open } from '../../src/edgetable.js';
import { UDP_SENDER, buildFirmwareTools, runProgram, scanAll, spawnBridgeProcess, tempDir, until, waitForExit } from '../bridge/fixtures/helpers.js';

const FULL_MS = Number(process.env.EDGETABLE_BRIDGE_DISK_FULL_MS ?? 15_000);
const NODES = 3;
const READINGS = 1500;

beforeAll(() => buildFirmwareTools());

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** Mounts a tmpfs of `size` at `dir`; undefined when this machine does not allow it. */
function mountTmpfs(dir: string, size: string): (() => void) | undefined {
  if (process.getuid?.() !== 0) return undefined;
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch {
    return undefined;
  }
  return () => execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
}

/** Writes zeros to `file` until the file system refuses (ENOSPC); returns the bytes written. */
function fillUp(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(16 * 1024);
  let n = 0;
  try {
    for (;;) n += writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  return n;
}

describe('bridge on a disk that fills up', () => {
  it(`stays up, acks nothing unwritten, and recovers after ${FULL_MS} ms of a full disk`, async (ctx) => {
    const dir = tempDir('etb-bridge-full-');
    cleanups.push(dir.cleanup);
    const mount = join(dir.path, 'tmpfs');
    const unmount = mountTmpfs(mount, '4m');
    if (unmount === undefined) {
      console.warn('bridge disk-full test skipped: mounting a tmpfs needs root and a mount-capable container');
      ctx.skip();
      return;
    }
    cleanups.push(unmount);
    const store = join(mount, 'db');
    const bridge = await spawnBridgeProcess(store, 0);
    cleanups.push(() => void bridge.child.kill('SIGKILL'));
    const written = () => Math.max(0, ...bridge.lines.map((l) => /^written (\d+)$/.exec(l)).filter((m) => m !== null).map((m) => Number(m[1])));

    const senders = Array.from({ length: NODES }, (_, i) =>
      runProgram(UDP_SENDER, ['127.0.0.1', String(bridge.port), `field-${i}`, String(READINGS), String(FULL_MS + 90_000)], FULL_MS + 100_000),
    );
    await until(() => written() >= 100, 30_000, 'the first readings written');

    // The disk fills up under the running bridge.
    const filler = join(mount, 'filler');
    fillUp(filler);
    const full = statfsSync(mount);
    expect(full.bavail * full.bsize).toBeLessThan(64 * 1024);
    const writtenWhenFull = written();
    await new Promise((r) => setTimeout(r, FULL_MS));
    expect(bridge.child.exitCode).toBeNull(); // still up
    expect(bridge.child.signalCode).toBeNull();
    const writtenWhileFull = written() - writtenWhenFull;
    expect(writtenWhileFull).toBeLessThan(NODES * READINGS - writtenWhenFull); // the disk did stop it

    // Space comes back: ingest recovers and every node gets every reading acknowledged.
    rmSync(filler);
    const results = await Promise.all(senders);
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    expect(bridge.child.exitCode).toBeNull();
    bridge.child.kill('SIGTERM');
    expect(await waitForExit(bridge.child)).toBe(0);

    const status = readBridgeStatus(store)!;
    expect(status.totals.storageErrors).toBeGreaterThan(0); // commits did fail while full
    expect(status.storage.pendingFrames).toBe(0);
    const db = open({ path: store });
    try {
      // The nodes stop resending a reading once it is acked: a reading acked but not written
      // would be missing here. Each once, none missing.
      const readings = scanAll(db, 'Readings');
      for (let i = 0; i < NODES; i++) {
        const seqs = readings.filter((r) => r.deviceId === `field-${i}`).map((r) => r.seq).sort((a, b) => a - b);
        expect(seqs).toEqual(Array.from({ length: READINGS }, (_, k) => k + 1));
      }
    } finally {
      db.close();
    }
    console.log(
      `bridge disk-full: ${writtenWhenFull} readings before the disk filled, ${writtenWhileFull} while full for ${FULL_MS} ms, ` +
        `${status.totals.storageErrors} failed commits retried, ${status.totals.written} written in all`,
    );
  }, FULL_MS + 150_000);
});
