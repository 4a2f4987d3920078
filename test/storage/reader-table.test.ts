import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeLayout, pidLocks, readSlots, readerCensus, sweepAllowedHere, sweepDeadReaders, type ReaderTableLayout } from '../../src/storage/reader-table.js';
import { Store } from '../../src/storage/store.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();
const child = fileURLToPath(new URL('./fixtures/reader-process.ts', import.meta.url));

/**
 * LMDB's MDB_LOCK_FORMAT for a POSIX-mutex build (mdb.c), written out from its macros: the
 * decoder must invert it for the layouts edgetable runs on.
 */
function lockFormat(o: { txnidBytes: 4 | 8; tidBytes: number; mutexBytes: number; mutexAlign: number; bodyBytes: number; version?: number; pidLock?: boolean }): number {
  const lockType = 10 + Math.log2(o.mutexAlign) + ((o.mutexBytes / 4) % 22) * 5;
  const desc = 6 * 1 + 18 * ((o.tidBytes / 4) % 5) + 90 * (Math.floor(o.bodyBytes / 64) % 3) + 270 * (lockType % 120) + (o.txnidBytes === 8 ? 1 << 15 : 0) + ((o.pidLock ?? true) ? 1 << 17 : 0);
  return ((o.version ?? 2) % 4096) + desc * 4096;
}

function header(format: number): Uint8Array {
  const bytes = Buffer.alloc(8);
  bytes.writeUInt32LE(0xbeefc0de, 0);
  bytes.writeUInt32LE(format >>> 0, 4);
  return bytes;
}

function runChild(path: string, mode: 'die-idle' | 'die-reading' | 'open-close'): void {
  try {
    execFileSync(process.execPath, ['--import', 'tsx', child, path, mode], { stdio: 'pipe', timeout: 30_000 });
  } catch (err) {
    if ((err as { signal?: string }).signal === 'SIGKILL' && mode !== 'open-close') return; // it killed itself, as asked
    throw err;
  }
}

describe('reader table layout, from the lock file format word', () => {
  it('x64 glibc (40-byte mutex): slots from byte 128, 64 bytes each, the pid after an 8-byte txn id', () => {
    const format = lockFormat({ txnidBytes: 8, tidBytes: 8, mutexBytes: 40, mutexAlign: 8, bodyBytes: 64 });
    expect(format).toBe(0x2c2f6002); // as this machine's node-lmdb writes it
    expect(decodeLayout(header(format))).toEqual({ txnidBytes: 8, numReadersOffset: 16, slotsOffset: 128, slotBytes: 64, pidOffset: 8 });
  });

  it('arm64 glibc (48-byte mutex): the header takes two cache lines, so slots start at byte 192', () => {
    const format = lockFormat({ txnidBytes: 8, tidBytes: 8, mutexBytes: 48, mutexAlign: 8, bodyBytes: 72 });
    expect(decodeLayout(header(format))).toMatchObject<Partial<ReaderTableLayout>>({ slotsOffset: 192, slotBytes: 64, pidOffset: 8 });
  });

  it('32-bit arm (4-byte txn ids and thread ids, 24-byte mutex): slots from byte 128, the pid at offset 4', () => {
    const format = lockFormat({ txnidBytes: 4, tidBytes: 4, mutexBytes: 24, mutexAlign: 4, bodyBytes: 40 });
    expect(decodeLayout(header(format))).toEqual({ txnidBytes: 4, numReadersOffset: 12, slotsOffset: 128, slotBytes: 64, pidOffset: 4 });
  });

  it('refuses what it does not understand instead of guessing', () => {
    const x64 = { txnidBytes: 8 as const, tidBytes: 8, mutexBytes: 40, mutexAlign: 8, bodyBytes: 64 };
    expect(decodeLayout(header(lockFormat({ ...x64, version: 999 })))).toMatch(/version 999/); // MDB_DEVEL
    expect(decodeLayout(header(lockFormat({ ...x64, pidLock: false })))).toMatch(/pid lock/);
    expect(decodeLayout(header(lockFormat({ ...x64, bodyBytes: 128 })))).toMatch(/unknown size/);
    const semaphores = 2 + (6 + 18 * 2 + 90 + 270 * 4 + (1 << 15) + (1 << 17)) * 4096; // MDB_USE_POSIX_SEM
    expect(decodeLayout(header(semaphores))).toMatch(/not a POSIX mutex/);
    expect(decodeLayout(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8))).toMatch(/not an LMDB lock file/);
  });

  it("finds this process's own slot in a real lock file", () => {
    const store = temp.open();
    const fd = openSync(join(store.path, 'lock.mdb'), 'r'); // closed only after the store: see reader-table.ts
    try {
      store.read(() => undefined);
      const real = readLayout(fd);
      const mine = readSlots(fd, real).filter((slot) => slot.pid === process.pid);
      expect(mine).toHaveLength(1);
      expect(mine[0]!.txnid).toBeNull(); // the idle reader is reset between reads
      store.read(() => expect(readSlots(fd, real).find((slot) => slot.pid === process.pid)?.txnid).toBe(BigInt(store.stats().lastTxnId)));
      expect(readerCensus(fd)).toEqual({ live: 1, stale: 0 });
    } finally {
      store.close();
      closeSync(fd);
    }
  });
});

/** A child in 'wait' mode, and a promise for each text it prints. */
function startWaiter(path: string) {
  const waiter = spawn(process.execPath, ['--import', 'tsx', child, path, 'wait'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  waiter.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  const saw = (text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        if (out.includes(text)) {
          clearInterval(poll);
          resolve();
        } else if (Date.now() - started > 30_000 || waiter.exitCode !== null) {
          clearInterval(poll);
          reject(new Error(`no "${text}" from the waiting process: ${out}`));
        }
      }, 20);
    });
  return { process: waiter, saw };
}

function readLayout(fd: number): ReaderTableLayout {
  const bytes = Buffer.alloc(8);
  readSync(fd, bytes, 0, 8, 0);
  const layout = decodeLayout(bytes);
  if (typeof layout === 'string') throw new Error(layout);
  return layout;
}

describe('which processes hold their pid lock, from /proc/locks', () => {
  // makedev(259, 1) as glibc encodes it; /proc/locks prints major:minor in hex.
  const dev = (259n << 8n) | 1n;
  const text = [
    '1: POSIX  ADVISORY  WRITE 4242 103:01:777 4242 4242',
    '2: POSIX  ADVISORY  READ 4242 103:01:777 0 0',
    '3: POSIX  ADVISORY  WRITE 5151 103:01:777 100 200',
    '4: -> POSIX  ADVISORY  WRITE 6060 103:01:777 6060 6060',
    '5: POSIX  ADVISORY  WRITE 7070 103:01:778 7070 7070',
    '6: POSIX  ADVISORY  WRITE 8080 fe:00:777 8080 8080',
    '7: FLOCK  ADVISORY  WRITE 9090 103:01:777 0 EOF',
    '8: POSIX  ADVISORY  WRITE 9191 103:01:777 9191 9191',
  ].join('\n');

  it('one-byte write locks on this file only: not read locks, ranges, waiters, other files or devices', () => {
    expect([...pidLocks(text, dev, 777n)].sort()).toEqual([4242, 9191]);
  });

  it('sweeps only where every sharing process is visible: not from a nested PID namespace', () => {
    expect(sweepAllowedHere('Name:\tnode\nNSpid:\t812\n')).toBe(true);
    expect(sweepAllowedHere('Name:\tnode\nNSpid:\t812\t7\n')).toBe(false);
    expect(sweepAllowedHere('Name:\tnode\n')).toBe(true);
    expect(sweepAllowedHere(null as unknown as string)).toBe(false);
  });

  it('a sweep that cannot see the locks clears nothing', () => {
    const store = temp.open();
    const fd = openSync(join(store.path, 'lock.mdb'), 'r+');
    try {
      store.read(() => undefined);
      expect(sweepDeadReaders(fd, null)).toMatchObject({ cleared: 0, skipped: '/proc/locks unreadable' });
      expect(sweepDeadReaders(fd, '', false)).toMatchObject({ cleared: 0, skipped: 'nested PID namespace' });
      // With no lock listed at all every slot would look dead; only the caller's facts decide.
      expect(readerCensus(fd, '', true)).toEqual({ live: 0, stale: 1 });
    } finally {
      store.close();
      closeSync(fd);
    }
  });
});

describe('Store: slots of processes that died with the folder open', () => {
  it('a neighbour killed over and over never fills the reader table (maxReaders 4, 8 kills)', () => {
    const store = temp.open({ maxReaders: 4 });
    store.database('shared');
    store.read(() => undefined);
    for (let i = 0; i < 8; i++) {
      runChild(store.path, 'die-idle');
      expect(store.stats().staleReaders).toBe(1); // the one just killed; the next open clears it
    }
    const after = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', child, store.path, 'open-close'], { encoding: 'utf8', timeout: 30_000 })) as ReturnType<Store['stats']>;
    expect(after).toMatchObject({ readers: 2, staleReaders: 0, staleReadersCleared: 1 });
    expect(store.stats()).toMatchObject({ readers: 1, staleReaders: 0 });
  }, 120_000);

  it('a neighbour killed inside a read stops pinning its snapshot once a process opens the folder', () => {
    const store = temp.open();
    const db = store.database('shared');
    const key = Uint8Array.of(1);
    const overwrite = (times: number): number => {
      const before = store.stats().usedBytes;
      for (let i = 0; i < times; i++) store.write((txn) => txn.put(db, key, new Uint8Array(16_384).fill(i & 0xff)));
      return store.stats().usedBytes - before;
    };
    overwrite(10);
    runChild(store.path, 'die-reading');
    expect(store.stats().staleReaders).toBe(1);
    const pinned = overwrite(100); // nothing freed after the dead reader's snapshot can be reused
    runChild(store.path, 'open-close'); // its open clears the dead slot
    expect(store.stats().staleReaders).toBe(0);
    overwrite(3); // the pages freed while pinned become reusable two commits later
    const unpinned = overwrite(100);
    console.log(`100 overwrites of a 16 KiB value: ${pinned} bytes of fresh pages with a dead reader pinning, ${unpinned} after the sweep`);
    expect(pinned).toBeGreaterThan(100 * 4 * 4096); // every overwrite took fresh pages
    expect(unpinned).toBeLessThan(pinned / 10);
  }, 60_000);

  it('a write that must grow the map first clears dead slots: they may be what holds the free pages', () => {
    const store = temp.open({ mapSizeBytes: 1024 * 1024 });
    const db = store.database('shared');
    store.write((txn) => txn.put(db, Uint8Array.of(1), new Uint8Array(16_384)));
    runChild(store.path, 'die-reading');
    expect(store.stats()).toMatchObject({ staleReaders: 1, staleReadersCleared: 0 });
    for (let i = 0; store.stats().mapSizeBytes === 1024 * 1024; i++) {
      store.write((txn) => txn.put(db, Uint8Array.of(1), new Uint8Array(16_384).fill(i & 0xff)));
    }
    expect(store.stats()).toMatchObject({ staleReaders: 0, staleReadersCleared: 1 });
  }, 60_000);

  it("never clears a live process's slot: a reader in another process keeps reading across a sweep", async () => {
    const store = temp.open();
    store.database('shared');
    const { process: waiter, saw } = startWaiter(store.path);
    try {
      await saw('ready');
      runChild(store.path, 'open-close'); // sweeps
      store.read(() => undefined);
      expect(store.stats()).toMatchObject({ readers: 2, staleReaders: 0 });
      waiter.stdin.write('go\n');
      await saw('read-ok');
    } finally {
      waiter.kill('SIGKILL');
    }
  }, 60_000);
});

describe('Store: stats count live readers, not LMDB high-water mark', () => {
  it('a store reopened after a neighbour closed counts only itself', () => {
    const store = temp.open();
    store.database('shared');
    runChild(store.path, 'open-close');
    store.read(() => undefined);
    expect(store.stats()).toMatchObject({ readers: 1, staleReaders: 0, staleReadersCleared: 0 });
  }, 60_000);

  it('opening a table full of dead slots works: the open sweeps before its first read', async () => {
    const store = temp.open({ maxReaders: 3 });
    store.database('shared');
    store.read(() => undefined);
    const waiters = [0, 1].map(() => startWaiter(store.path));
    await Promise.all(waiters.map((w) => w.saw('ready')));
    for (const w of waiters) w.process.kill('SIGKILL');
    await Promise.all(waiters.map((w) => new Promise((resolve) => w.process.once('exit', resolve))));
    expect(store.stats()).toMatchObject({ readers: 1, staleReaders: 2 }); // 3 of 3 slots taken
    expect(() => runChild(store.path, 'open-close')).not.toThrow();
    expect(store.stats()).toMatchObject({ readers: 1, staleReaders: 0 });
  }, 60_000);
});
