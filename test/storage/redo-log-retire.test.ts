/**
 * The redo log's files are removed when a 'log' store closes (or hands the folder over). POSIX
 * orders no unlink before the folder's next flush, so a power cut in between can leave any subset
 * of them undone; this file records the unlinks and folder flushes a close makes and reopens, as
 * after a restart, every folder such a cut can leave.
 */
import { spawnSync } from 'node:child_process';
import fs, { cpSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempStores } from './fixtures/temp-stores.js';
import { Store } from '../../src/storage/store.js';

const writer = fileURLToPath(new URL('./fixtures/redo-writer.ts', import.meta.url));

type FolderChange = { kind: 'unlink'; name: string } | { kind: 'folder-flush' };

const { folder } = tempStores('edgetable-redo-retire-');

const isLog = (name: string): boolean => /^redo-[a-z]\.log$/.test(name);
const key = (i: number): Buffer => Buffer.from(`key-${String(i).padStart(6, '0')}`);

/**
 * Runs fn with node:fs's unlinkSync and fsyncSync watched in `path`: returns the unlinks and
 * flushes of the folder it made, and the log files as they were at the first unlink of one.
 */
function watchFolder(path: string, fn: () => void): { changes: FolderChange[]; logs: Map<string, Buffer> } {
  const changes: FolderChange[] = [];
  let logs: Map<string, Buffer> | undefined;
  const { unlinkSync, fsyncSync } = fs;
  fs.unlinkSync = (file: fs.PathLike) => {
    if (dirname(String(file)) === path) {
      if (isLog(basename(String(file)))) logs ??= new Map(readdirSync(path).filter(isLog).map((name) => [name, readFileSync(join(path, name))]));
      changes.push({ kind: 'unlink', name: basename(String(file)) });
    }
    unlinkSync(file);
  };
  fs.fsyncSync = (fd: number) => {
    if (fs.fstatSync(fd).isDirectory() && fs.readlinkSync(`/proc/self/fd/${fd}`) === path) changes.push({ kind: 'folder-flush' });
    fsyncSync(fd);
  };
  syncBuiltinESMExports();
  try {
    fn();
  } finally {
    fs.unlinkSync = unlinkSync;
    fs.fsyncSync = fsyncSync;
    syncBuiltinESMExports();
  }
  return { changes, logs: logs ?? new Map() };
}

/** The sets of log files a power cut during `changes` can leave undone: at each point, the durable unlinks plus any subset of the pending ones. */
function removableSets(changes: readonly FolderChange[]): Set<string>[] {
  const sets: Set<string>[] = [];
  for (let cut = 0; cut <= changes.length; cut++) {
    const durable: string[] = [];
    let pending: string[] = [];
    for (const change of changes.slice(0, cut)) {
      if (change.kind === 'folder-flush') {
        durable.push(...pending);
        pending = [];
      } else if (isLog(change.name)) {
        pending.push(change.name);
      }
    }
    for (let subset = 0; subset < 1 << pending.length; subset++) {
      sets.push(new Set([...durable, ...pending.filter((_, i) => subset & (1 << i))]));
    }
  }
  return sets;
}

/** Reopens, as after a restart, every folder a cut during `changes` can leave; each must hold `count` items. */
function expectEveryCutRecovers(path: string, changes: readonly FolderChange[], logs: ReadonlyMap<string, Buffer>, count: number): void {
  const sets = removableSets(changes);
  expect(sets.length).toBeGreaterThan(2);
  for (const removed of sets) {
    const cut = `${path}-cut`;
    rmSync(cut, { recursive: true, force: true });
    cpSync(path, cut, { recursive: true });
    for (const [name, bytes] of logs) if (!removed.has(name)) fs.writeFileSync(join(cut, name), bytes);
    process.env.EDGETABLE_TEST_BOOT_ID = `${'e'.repeat(31)}${removed.size}`;
    const left = [...logs.keys()].filter((name) => !removed.has(name));
    const again = Store.open({ path: cut, durability: 'sync' });
    try {
      expect({ left, items: again.read((txn) => txn.count(again.database('items'))) }).toEqual({ left, items: count });
    } finally {
      again.close();
    }
  }
}

describe("closing a 'log' store", () => {
  // With a checkpoint every 4 commits and no turn given back to the event loop, the close finds a
  // checkpoint in flight: the newest file holds records past the last durable checkpoint, which is
  // in the older file. Over these counts the newest generation is in redo-a as often as in redo-b.
  it.each([5, 9, 13, 20, 27])(
    'after %i writes, leaves at every point of its unlinks a folder that recovers every write after a restart',
    (writes) => {
      const path = folder();
      const store = Store.open({ path, durability: 'log', checkpoint: { commits: 4, bytes: 1 << 20, pages: 1 << 20 } });
      const items = store.database('items');
      for (let i = 0; i < writes; i++) store.write((txn) => txn.put(items, key(i), Buffer.from(`value ${i}`)));
      const { changes, logs } = watchFolder(path, () => store.close());
      expect(changes.some((c) => c.kind === 'unlink')).toBe(true);
      expect(readdirSync(path).filter(isLog)).toEqual([]);

      expectEveryCutRecovers(path, changes, logs, writes);
    },
  );
});

describe("recovering a killed 'log' writer's folder with durability 'sync'", () => {
  it.each([7, 13, 22])('after %i acknowledged writes, leaves at every point of its unlinks a folder that recovers every write after a restart', (count) => {
    const path = folder();
    const run = spawnSync(process.execPath, ['--import', 'tsx', writer, path, 'write', String(count), '4'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.signal, run.stderr).toBe('SIGKILL');
    expect(readdirSync(path).filter(isLog).length).toBeGreaterThan(0);
    const { changes, logs } = watchFolder(path, () => Store.open({ path, durability: 'sync' }).close());
    expect(readdirSync(path).filter(isLog)).toEqual([]);
    expectEveryCutRecovers(path, changes, logs, count);
  });
});
