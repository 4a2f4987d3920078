/**
 * Store.writeAsync (src/storage/async-commits.ts): fn runs in a write txn on this
 * thread that is recorded and aborted, and the recorded changes commit on a libuv worker
 * (storage/batch-commit.ts). Inside fn everything behaves as in any write txn (reads see fn's own
 * writes, cursors merge them with the stored entries, deletes hide, counts follow); the promise
 * resolves once the changes are durable; a commit that lands between recording and replay makes
 * fn re-run on the new state, so no write is lost and none is applied on a stale read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { MAX_REPLAY_CONFLICTS, type Store } from '../../src/storage/store.js';
import type { Database } from '../../src/storage/database.js';
import type { WriteTxn } from '../../src/storage/txn.js';
import { hex, text, useTempStores } from './temp-store.js';

const temp = useTempStores();

function contents(store: Store, db: Database): Record<string, string> {
  return store.read((txn) => Object.fromEntries([...txn.cursor(db)].map((e) => [Buffer.from(e.key).toString(), Buffer.from(e.value).toString()])));
}

describe('Store.writeAsync', () => {
  it('inside fn, reads see fn’s own writes: get, cursor (merged, in key order, both directions), deletes hide, count, first, last', async () => {
    const store = temp.open();
    const db = store.database('d');
    store.write((txn) => {
      for (const k of ['b', 'd', 'f']) txn.put(db, text(k), text(`old-${k}`));
    });
    const seen = await store.writeAsync((txn) => {
      txn.put(db, text('c'), text('new-c'));
      txn.put(db, text('d'), text('new-d'));
      const deleted = txn.delete(db, text('f'));
      const absent = txn.delete(db, text('zz'));
      const keys = (options = {}) => [...txn.cursor(db, options)].map((e) => `${Buffer.from(e.key).toString()}=${Buffer.from(e.value).toString()}`);
      return {
        get: hex(txn.get(db, text('d'))),
        gone: txn.get(db, text('f')),
        deleted,
        absent,
        forward: keys(),
        reverse: keys({ reverse: true, limit: 2 }),
        count: txn.count(db),
        first: Buffer.from(txn.first(db)!.key).toString(),
        last: Buffer.from(txn.last(db)!.key).toString(),
        viaRead: store.read((inner) => hex(inner.get(db, text('c')))),
      };
    });
    expect(seen).toEqual({
      get: hex(text('new-d')),
      gone: undefined,
      deleted: true,
      absent: false,
      forward: ['b=old-b', 'c=new-c', 'd=new-d'],
      reverse: ['d=new-d', 'c=new-c'],
      count: 3,
      first: 'b',
      last: 'd',
      viaRead: hex(text('new-c')),
    });
    expect(contents(store, db)).toEqual({ b: 'old-b', c: 'new-c', d: 'new-d' });
  });

  it("commits on a worker: the recording txn writes nothing, the replay is the one commit with both its flushes ('sync'); resolves after it, with no second trip for a flush", async () => {
    const store = temp.open();
    const db = store.database('d');
    const commits = store.stats().commits;
    const flushes = store.flushCount;
    const events: string[] = [];
    store.onFlush = (kind) => events.push(`${kind}, committed: ${store.read((txn) => txn.get(db, text('k')) !== undefined)}, flushes: ${store.flushCount - flushes}`);
    store.sync = () => Promise.reject(new Error('sync() is not needed: the commit flushed its meta page'));
    const done = store.writeAsync((txn) => txn.put(db, text('k'), text('v'))).then(() => events.push('resolved'));
    await Promise.resolve();
    events.push(`after recording, visible: ${store.read((txn) => txn.get(db, text('k')) !== undefined)}`);
    await done;
    // onFlush runs once the worker's commit returned: LMDB flushed the data pages, then wrote the meta page through its O_DSYNC descriptor
    expect(events).toEqual(['after recording, visible: false', 'commit, committed: true, flushes: 2', 'resolved']);
    expect(store.hasUnflushedCommits).toBe(false);
    expect(store.stats().commits - commits).toBe(1);
    expect(store.asyncCommitStats).toEqual({ committed: 1, conflicts: 0, onThisThread: 0 });
  });

  it("'relaxed': the replay commits without flushing its meta page; resolves only after sync() flushed it", async () => {
    const store = temp.open({ durability: 'relaxed', syncIntervalMs: 60_000 });
    const db = store.database('d');
    const flushes = store.flushCount;
    const events: string[] = [];
    const sync = store.sync.bind(store);
    store.sync = () => {
      events.push(`flush started, committed: ${store.read((txn) => txn.get(db, text('k')) !== undefined)}, flushes: ${store.flushCount - flushes}`);
      return sync().then(() => void events.push('flush done'));
    };
    await store.writeAsync((txn) => txn.put(db, text('k'), text('v'))).then(() => events.push('resolved'));
    expect(events).toEqual(['flush started, committed: true, flushes: 1', 'flush done', 'resolved']);
    expect(store.hasUnflushedCommits).toBe(false);
  });

  it('a commit between recording and replay: the replay writes nothing and fn re-runs on the new state', async () => {
    const faults = new FaultInjector();
    const store = temp.open({ faults });
    const db = store.database('d');
    store.write((txn) => txn.put(db, text('counter'), text('1')));
    let interleave = true;
    faults.betweenRecordAndReplay = () => {
      if (!interleave) return;
      interleave = false;
      store.write((txn) => txn.put(db, text('counter'), text('10'))); // another writer, on the same key
    };
    const runs: string[] = [];
    const increment = (txn: WriteTxn): string => {
      const next = String(Number(Buffer.from(txn.get(db, text('counter'))!).toString()) + 1);
      runs.push(next);
      txn.put(db, text('counter'), text(next));
      txn.put(db, text(`seen-${next}`), text('x'));
      return next;
    };
    expect(await store.writeAsync(increment)).toBe('11');
    expect(runs).toEqual(['2', '11']);
    expect(contents(store, db)).toEqual({ counter: '11', 'seen-11': 'x' }); // nothing of the stale run
    expect(store.asyncCommitStats).toEqual({ committed: 1, conflicts: 1, onThisThread: 0 });
  });

  it(`after ${MAX_REPLAY_CONFLICTS} conflicts in a row, commits on this thread (still durable before it resolves)`, async () => {
    const faults = new FaultInjector();
    const store = temp.open({ faults });
    const db = store.database('d');
    let other = 0;
    faults.betweenRecordAndReplay = () => store.write((txn) => txn.put(db, text(`other-${++other}`), text('o')));
    const result = await store.writeAsync((txn) => {
      txn.put(db, text('mine'), text(String(txn.count(db))));
      return 'ok';
    });
    expect(result).toBe('ok');
    expect(other).toBe(MAX_REPLAY_CONFLICTS);
    expect(contents(store, db).mine).toBe(String(MAX_REPLAY_CONFLICTS));
    expect(store.asyncCommitStats).toEqual({ committed: 0, conflicts: MAX_REPLAY_CONFLICTS, onThisThread: 1 });
    expect(store.hasUnflushedCommits).toBe(false);
  });

  it('fn that creates a database commits on this thread; fn that only opens one replays', async () => {
    const path = `${temp.dir()}/db`;
    const first = temp.open({ path });
    first.database('existing');
    first.close();
    const store = temp.open({ path });
    await store.writeAsync((txn) => txn.put(store.database('existing'), text('a'), text('1')));
    expect(store.asyncCommitStats).toEqual({ committed: 1, conflicts: 0, onThisThread: 0 });
    await store.writeAsync((txn) => txn.put(store.database('created'), text('b'), text('2')));
    expect(store.asyncCommitStats).toEqual({ committed: 1, conflicts: 0, onThisThread: 1 });
    expect(contents(store, store.database('existing'))).toEqual({ a: '1' });
    expect(contents(store, store.database('created'))).toEqual({ b: '2' });
  });

  it('fn that throws writes nothing and rejects with its error; calls run one at a time, in order', async () => {
    const store = temp.open();
    const db = store.database('d');
    const failing = store.writeAsync((txn) => {
      txn.put(db, text('x'), text('1'));
      throw new Error('refused');
    });
    const order: number[] = [];
    const writes = [1, 2, 3].map((i) =>
      store.writeAsync((txn) => {
        order.push(i);
        txn.put(db, text('last'), text(String(i)));
      }),
    );
    await expect(failing).rejects.toThrow('refused');
    await Promise.all(writes);
    expect(order).toEqual([1, 2, 3]);
    expect(contents(store, db)).toEqual({ last: '3' });
  });

  it('grows the map when fn’s changes do not fit (recording or replay), and re-runs fn', async () => {
    const store = temp.open({ mapSizeBytes: 1024 * 1024, maxMapSizeBytes: 64 * 1024 * 1024 });
    const db = store.database('d');
    const value = new Uint8Array(4000).fill(7);
    await store.writeAsync((txn) => {
      for (let i = 0; i < 600; i++) txn.put(db, text(`k${String(i).padStart(4, '0')}`), value);
    });
    expect(store.read((txn) => txn.count(db))).toBe(600);
    expect(store.stats().mapSizeBytes).toBeGreaterThan(1024 * 1024);
  });

  it('close() while a replay is in flight: the write still commits and is flushed before it resolves', async () => {
    const path = `${temp.dir()}/db`;
    const store = temp.open({ path });
    const db = store.database('d');
    const write = store.writeAsync((txn) => txn.put(db, text('k'), text('v')));
    await Promise.resolve(); // the recording ran; the replay is on the worker
    await new Promise((r) => setImmediate(r));
    store.close();
    await write;
    const again = temp.open({ path });
    expect(contents(again, again.database('d'))).toEqual({ k: 'v' });
  });

  it('property: writeAsync leaves exactly the state write() would, for puts, deletes and reads of own writes', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), key: fc.integer({ min: 0, max: 15 }), value: fc.integer({ min: 0, max: 99 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 15 }) }),
      fc.record({ kind: fc.constant('summarize' as const), key: fc.integer({ min: 0, max: 15 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 10 }), fc.array(op, { maxLength: 25 }), async (seed, ops) => {
        const syncStore = temp.open();
        const asyncStore = temp.open();
        const fnFor = (db: Database) => (txn: WriteTxn) => {
          const log: string[] = [];
          for (const o of ops) {
            const key = text(`k${String(o.key).padStart(2, '0')}`);
            if (o.kind === 'put') txn.put(db, key, text(String(o.value)));
            else if (o.kind === 'delete') log.push(String(txn.delete(db, key)));
            else {
              // a value derived from a cursor walk from `key` on: replay must not re-derive it
              const walked = [...txn.cursor(db, { start: key, limit: 3 })].map((e) => Buffer.from(e.value).toString()).join(',');
              txn.put(db, text(`s${o.key}`), text(`${walked}|${txn.count(db)}`));
              log.push(walked);
            }
          }
          return log;
        };
        const results: string[][] = [];
        const states: Record<string, string>[] = [];
        for (const [store, mode] of [[syncStore, 'sync'], [asyncStore, 'async']] as const) {
          const db = store.database('d');
          store.write((txn) => {
            for (const k of seed) txn.put(db, text(`k${String(k).padStart(2, '0')}`), text('seed'));
          });
          results.push(mode === 'sync' ? store.write(fnFor(db)) : await store.writeAsync(fnFor(db)));
          states.push(contents(store, db));
          store.close();
        }
        expect(results[1]).toEqual(results[0]);
        expect(states[1]).toEqual(states[0]);
      }),
      { numRuns: 40 },
    );
  });
});
