import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/storage/store.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { bytes, hex, text, useTempStores } from './temp-store.js';

const temp = useTempStores();

describe('Store: open, reopen, close', () => {
  it('creates the folder and finds everything again after reopening', () => {
    const path = join(temp.dir(), 'nested', 'db');
    const first = Store.open({ path });
    const a = first.database('t/a');
    const b = first.database('t/b');
    first.write((txn) => {
      txn.put(a, bytes(1), text('one'));
      txn.put(b, bytes(0x00), bytes(0xff));
    });
    first.close();
    first.close(); // idempotent

    const second = temp.open({ path });
    expect(second.listDatabases()).toEqual(['t/a', 't/b']);
    second.read((txn) => {
      expect(hex(txn.get(second.database('t/a'), bytes(1)))).toBe(hex(text('one')));
      expect(hex(txn.get(second.database('t/b'), bytes(0x00)))).toBe('ff');
    });
  });

  it('refuses a second open of the same folder in one process and any use after close', () => {
    const store = temp.open();
    expect(() => Store.open({ path: store.path })).toThrow(expect.objectContaining({ code: 'BUSY' }));
    const db = store.database('x');
    store.close();
    expect(store.closed).toBe(true);
    expect(() => store.read((txn) => txn.get(db, bytes(1)))).toThrow(expect.objectContaining({ code: 'CLOSED' }));
    expect(() => store.write(() => undefined)).toThrow(StorageError);
  });

  it('opens read-only and refuses writes', () => {
    const path = join(temp.dir(), 'db');
    const writer = Store.open({ path });
    writer.write((txn) => txn.put(writer.database('d'), bytes(1), bytes(2)));
    writer.close();
    const reader = temp.open({ path, readOnly: true });
    expect(reader.read((txn) => hex(txn.get(reader.database('d'), bytes(1))))).toBe('02');
    expect(() => reader.write(() => undefined)).toThrow(expect.objectContaining({ code: 'READ_ONLY' }));
    expect(() => reader.database('missing')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });
});

describe('Store: read and write txns', () => {
  it('commits when fn returns and returns its value', () => {
    const store = temp.open();
    const db = store.database('d');
    expect(store.write((txn) => (txn.put(db, bytes(1), bytes(9)), 'done'))).toBe('done');
    expect(store.read((txn) => hex(txn.getCopy(db, bytes(1))))).toBe('09');
  });

  it('aborts when fn throws, rethrows the same error and persists nothing', () => {
    const store = temp.open();
    const db = store.database('d');
    store.write((txn) => txn.put(db, bytes(1), bytes(1)));
    const boom = new Error('boom');
    expect(() =>
      store.write((txn) => {
        txn.put(db, bytes(1), bytes(2));
        txn.put(db, bytes(2), bytes(2));
        txn.delete(db, bytes(1));
        throw boom;
      }),
    ).toThrow(boom);
    store.read((txn) => {
      expect(hex(txn.get(db, bytes(1)))).toBe('01');
      expect(txn.get(db, bytes(2))).toBeUndefined();
      expect(txn.count(db)).toBe(1);
    });
  });

  it('a database created inside an aborted write does not exist and is recreated on next use', () => {
    const store = temp.open();
    expect(() =>
      store.write((txn) => {
        txn.put(store.database('fresh'), bytes(1), bytes(1));
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(store.hasDatabase('fresh')).toBe(false);
    const db = store.database('fresh');
    store.write((txn) => txn.put(db, bytes(1), bytes(7)));
    expect(store.read((txn) => hex(txn.get(db, bytes(1))))).toBe('07');
  });

  it('read inside write sees the write txn; write inside read or write is refused', () => {
    const store = temp.open();
    const db = store.database('d');
    store.write((txn) => {
      txn.put(db, bytes(5), bytes(5));
      expect(store.read((inner) => hex(inner.get(db, bytes(5))))).toBe('05');
      expect(() => store.write(() => undefined)).toThrow(expect.objectContaining({ code: 'BUSY' }));
    });
    store.read(() => {
      expect(() => store.write(() => undefined)).toThrow(expect.objectContaining({ code: 'BUSY' }));
      expect(store.read((inner) => hex(inner.get(db, bytes(5))))).toBe('05');
    });
  });

  it('tells beforeTxn the kind of each outermost txn, and nothing for a txn nested in one', () => {
    const store = temp.open();
    const db = store.database('d');
    const kinds: string[] = [];
    store.beforeTxn = (kind) => kinds.push(kind);
    store.write((txn) => {
      txn.put(db, bytes(1), bytes(1));
      store.read(() => undefined); // joins the write txn
    });
    store.read(() => store.read(() => undefined));
    store.read(() => undefined, 'range-read');
    expect(kinds).toEqual(['write', 'read', 'range-read']);
  });

  it('delete reports presence, clear empties, and a txn cannot be used after its callback', () => {
    const store = temp.open();
    const db = store.database('d');
    let leaked: unknown;
    store.write((txn) => {
      txn.put(db, bytes(1), bytes(1));
      txn.put(db, bytes(2), bytes(2));
      expect(txn.delete(db, bytes(1))).toBe(true);
      expect(txn.delete(db, bytes(1))).toBe(false);
      leaked = txn;
    });
    expect(store.read((txn) => txn.count(db))).toBe(1);
    store.write((txn) => txn.clear(db));
    expect(store.read((txn) => txn.count(db))).toBe(0);
    expect(store.hasDatabase('d')).toBe(true);
    expect(() => (leaked as { get(d: unknown, k: Uint8Array): unknown }).get(db, bytes(1))).toThrow(
      expect.objectContaining({ code: 'INVALID' }),
    );
  });

  it('rejects async write callbacks without committing', async () => {
    const store = temp.open();
    const db = store.database('d');
    expect(() =>
      store.write(async (txn) => {
        txn.put(db, bytes(1), bytes(1));
      }),
    ).toThrow(expect.objectContaining({ code: 'INVALID' }));
    expect(store.read((txn) => txn.get(db, bytes(1)))).toBeUndefined();
  });

  it('get returns the stored bytes (empty values included); getCopy survives later calls', () => {
    const store = temp.open();
    const db = store.database('d');
    store.write((txn) => {
      txn.put(db, bytes(1), text('first value'));
      txn.put(db, bytes(2), text('second value'));
      txn.put(db, bytes(3), new Uint8Array(0));
    });
    store.read((txn) => {
      expect(Buffer.from(txn.get(db, bytes(1))!).toString()).toBe('first value');
      const copy = txn.getCopy(db, bytes(1))!;
      txn.get(db, bytes(2));
      expect(Buffer.from(copy).toString()).toBe('first value');
      const second = txn.get(db, bytes(2))!;
      expect(Buffer.from(second).toString()).toBe('second value');
      expect(txn.get(db, bytes(3))?.length).toBe(0);
      expect(txn.get(db, bytes(4))).toBeUndefined();
    });
  });

  it('rejects empty and over-long keys with INVALID and leaves the store usable', () => {
    const store = temp.open();
    const db = store.database('d');
    expect(() => store.write((txn) => txn.put(db, new Uint8Array(0), bytes(1)))).toThrow(
      expect.objectContaining({ code: 'INVALID' }),
    );
    expect(() => store.write((txn) => txn.put(db, new Uint8Array(512), bytes(1)))).toThrow(
      expect.objectContaining({ code: 'INVALID' }),
    );
    store.write((txn) => txn.put(db, new Uint8Array(511).fill(0xff), bytes(1)));
    expect(store.read((txn) => txn.count(db))).toBe(1);
  });

  it('accepts Uint8Array subarray keys and values', () => {
    const store = temp.open();
    const db = store.database('d');
    const backing = bytes(9, 9, 1, 2, 3, 9);
    store.write((txn) => txn.put(db, backing.subarray(2, 3), backing.subarray(2, 5)));
    expect(store.read((txn) => hex(txn.getCopy(db, bytes(1))))).toBe('010203');
  });
});

describe('Store: named databases', () => {
  it('lists by prefix, drops with contents, and reports existence', () => {
    const store = temp.open();
    for (const name of ['t/a/p/0', 't/a/p/1', 't/b/p/0', '_catalog']) {
      store.write((txn) => txn.put(store.database(name), bytes(1), bytes(1)));
    }
    expect(store.listDatabases('t/a/')).toEqual(['t/a/p/0', 't/a/p/1']);
    expect(store.listDatabases()).toEqual(['_catalog', 't/a/p/0', 't/a/p/1', 't/b/p/0']);
    expect(store.listDatabases('zzz')).toEqual([]);
    expect(store.dropDatabase('t/a/p/0')).toBe(true);
    expect(store.dropDatabase('t/a/p/0')).toBe(false);
    expect(store.hasDatabase('t/a/p/0')).toBe(false);
    expect(store.listDatabases('t/a/')).toEqual(['t/a/p/1']);
    // Recreated empty.
    const again = store.database('t/a/p/0');
    expect(store.read((txn) => txn.count(again))).toBe(0);
    expect(store.stats().databases).toBe(4);
  });

  it('a drop inside an aborted write leaves the database and its contents', () => {
    const store = temp.open();
    const db = store.database('keep');
    store.write((txn) => txn.put(db, bytes(1), bytes(1)));
    expect(() =>
      store.write(() => {
        expect(store.dropDatabase('keep')).toBe(true);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(store.hasDatabase('keep')).toBe(true);
    expect(store.read((txn) => hex(txn.get(db, bytes(1))))).toBe('01');
  });

  it('inside read() an existing database opens and a missing one is NOT_FOUND', () => {
    const path = join(temp.dir(), 'db');
    const writer = Store.open({ path });
    writer.write((txn) => txn.put(writer.database('exists'), bytes(1), bytes(3)));
    writer.close();
    const store = temp.open({ path });
    store.read((txn) => {
      expect(hex(txn.get(store.database('exists'), bytes(1)))).toBe('03');
      expect(() => store.database('missing')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    });
    // The handle opened by that reader stays usable.
    expect(store.read((txn) => hex(txn.get(store.database('exists'), bytes(1))))).toBe('03');
  });

  it('rejects invalid names', () => {
    const store = temp.open();
    expect(() => store.database('')).toThrow(expect.objectContaining({ code: 'INVALID' }));
    expect(() => store.database('a\0b')).toThrow(expect.objectContaining({ code: 'INVALID' }));
    expect(() => store.database('x'.repeat(512))).toThrow(expect.objectContaining({ code: 'INVALID' }));
  });
});

describe('Store: relaxed durability and stats', () => {
  it('relaxed stores commit, sync off-thread and keep data across close', async () => {
    const path = join(temp.dir(), 'db');
    const store = Store.open({ path, durability: 'relaxed', syncIntervalMs: 10 });
    const db = store.database('d');
    store.write((txn) => txn.put(db, bytes(1), bytes(1)));
    await store.sync();
    store.write((txn) => txn.put(db, bytes(2), bytes(2)));
    store.close();
    const reopened = temp.open({ path });
    expect(reopened.read((txn) => txn.count(reopened.database('d')))).toBe(2);
    const stats = reopened.stats();
    expect(stats.mapSizeBytes).toBeGreaterThan(0);
    expect(stats.usedBytes).toBeGreaterThan(0);
    expect(stats.usedBytes).toBeLessThanOrEqual(stats.mapSizeBytes);
  });
});

describe('Store: flushes (what survives a power cut: test/reliability/power-cut.test.ts)', () => {
  it("'sync': a commit returns flushed, data pages and meta page (two flushes)", () => {
    const store = temp.open();
    const db = store.database('d');
    const before = store.flushCount;
    store.write((txn) => txn.put(db, bytes(1), bytes(1)));
    expect(store.flushCount - before).toBe(2);
    expect(store.hasUnflushedCommits).toBe(false);
  });

  it("'sync': LMDB flushes the meta page inside the commit (its O_DSYNC descriptor), so nothing is left for sync()", () => {
    const store = temp.open();
    const db = store.database('d');
    const before = store.flushCount;
    store.write((txn) => txn.put(db, bytes(1), bytes(1)));
    store.writeGroup(() => store.write((txn) => txn.put(db, bytes(2), bytes(2))));
    expect(store.flushCount - before).toBe(4); // data pages, then meta page, per commit
    expect(store.hasUnflushedCommits).toBe(false);
  });

  it("'relaxed': one flush per commit; the meta page waits for the next commit, sync() or close()", () => {
    const path = join(temp.dir(), 'db');
    const store = Store.open({ path, durability: 'relaxed', syncIntervalMs: 60_000 });
    const db = store.database('d');
    const before = store.flushCount;
    store.write((txn) => txn.put(db, bytes(1), bytes(1)));
    expect(store.flushCount - before).toBe(1);
    expect(store.hasUnflushedCommits).toBe(true);
    store.close(); // flushes
    const reopened = temp.open({ path });
    expect(reopened.read((txn) => txn.count(reopened.database('d')))).toBe(1);
  });
});
