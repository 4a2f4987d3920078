/**
 * node-lmdb used directly, the naive way: one sub-database, key = UTF-8 sensorId + 0x00 + ts as
 * 8 bytes big-endian, value = the reading as a cbor-x encoded object, copying reads (getBinary,
 * getCurrentBinary) and a full decode. No validation, metering or expressions: the ceiling of
 * this stack. Read txns are reused with reset/renew, as edgetable's store does.
 *
 * Bench-only exception to "node-lmdb only in storage/": this file IS the comparison.
 */
import { Encoder } from 'cbor-x';
import type { Contender } from '../contender.js';
import type { KeyRef, Reading, Window } from '../workload.js';
import { lmdb, type Cursor, type Dbi, type Env, type Txn } from '../node-lmdb.js';

type Stored = Reading & { c?: number };

const cbor = new Encoder({ useRecords: false, mapsAsObjects: true });
const MAX_TS = Buffer.alloc(8, 0xff);
/** Address space, not disk: the file grows with its pages (10 M readings take a few GiB). */
const MAP_SIZE_BYTES = 32 * 2 ** 30;

function keyOf(sensorId: string, ts: number): Buffer {
  const prefixLength = Buffer.byteLength(sensorId) + 1;
  const key = Buffer.alloc(prefixLength + 8);
  key.write(sensorId, 0, 'utf8');
  key.writeBigUInt64BE(BigInt(ts), prefixLength);
  return key;
}

function sensorPrefix(sensorId: string): Buffer {
  return Buffer.concat([Buffer.from(sensorId, 'utf8'), Buffer.of(0)]);
}

function hasPrefix(key: Buffer, prefix: Buffer): boolean {
  return key.length >= prefix.length && key.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

export function createContender(): Contender<Reading> {
  let env: Env | undefined;
  let dbi: Dbi | undefined;
  let reader: Txn | undefined;

  let path: string | undefined;
  const openAt = (dir: string, noSync: boolean) => {
    path = dir;
    env = new lmdb.Env();
    env.open({ path: dir, mapSize: MAP_SIZE_BYTES, maxDbs: 2, noSync });
    dbi = env.openDbi({ name: 'readings', create: true, keyIsBuffer: true });
  };
  const closeEnv = () => {
    reader?.abort();
    reader = undefined;
    dbi?.close();
    env?.close();
    env = undefined;
    dbi = undefined;
  };

  const handles = () => {
    if (!env || !dbi) throw new Error('raw node-lmdb contender is not open');
    return { env, dbi };
  };
  const write = <T>(fn: (txn: Txn, dbi: Dbi) => T): T => {
    const h = handles();
    const txn = h.env.beginTxn();
    try {
      const out = fn(txn, h.dbi);
      txn.commit();
      return out;
    } catch (e) {
      txn.abort();
      throw e;
    }
  };
  const read = <T>(fn: (txn: Txn, dbi: Dbi) => T): T => {
    const h = handles();
    if (reader) reader.renew();
    else reader = h.env.beginTxn({ readOnly: true });
    try {
      return fn(reader, h.dbi);
    } finally {
      reader.reset();
    }
  };
  /** Walks a cursor from `seek` with `step` while `more(key)` holds, decoding up to `limit` values. */
  const walk = (
    txn: Txn,
    d: Dbi,
    seek: (c: Cursor) => Buffer | null,
    step: 'goToNext' | 'goToPrev',
    more: (key: Buffer) => boolean,
    limit: number,
  ): { n: number; last: Buffer | null } => {
    const cursor = new lmdb.Cursor(txn, d, { keyIsBuffer: true });
    try {
      let n = 0;
      let last: Buffer | null = null;
      for (let key = seek(cursor); key && n < limit && more(key); key = cursor[step]()) {
        cbor.decode(cursor.getCurrentBinary()!) as Stored;
        last = key;
        n++;
      }
      return { n, last };
    } finally {
      cursor.close();
    }
  };

  return {
    name: 'raw node-lmdb',
    notes: [
      'raw node-lmdb: default env flags (fsync per commit), MDB_NOSYNC for the puts without a flush per commit (not power-cut safe: a cut can corrupt the store, so that figure is a ceiling, not a contender); one sub-database, key sensorId\\0 + ts (u64 BE), value cbor-x object; copying reads, full decode.',
    ],
    open(dir) {
      openAt(dir, false);
    },
    prepare: (r) => r,
    putItem(r) {
      write((txn, d) => txn.putBinary(d, keyOf(r.sensorId, r.ts), cbor.encode(r)));
    },
    putBatch(rs) {
      write((txn, d) => {
        for (const r of rs) txn.putBinary(d, keyOf(r.sensorId, r.ts), cbor.encode(r));
      });
    },
    getItem(k) {
      return read((txn, d) => {
        const value = txn.getBinary(d, keyOf(k.sensorId, k.ts));
        if (!value) return 0;
        cbor.decode(value) as Stored;
        return 1;
      });
    },
    scanAll(pageItems, maxItems, onPage) {
      let total = 0;
      let after: Buffer | null = null;
      for (;;) {
        const from: Buffer | null = after;
        const page: { n: number; last: Buffer | null } = read((txn, d) =>
          walk(txn, d, (c) => (from ? skipEqual(c, c.goToRange(from), from) : c.goToFirst()), 'goToNext', () => true, pageItems),
        );
        total += page.n;
        onPage?.();
        if (page.n < pageItems || !page.last || total >= maxItems) return total;
        after = page.last;
      }
    },
    queryLatest(sensorId, count) {
      const prefix = sensorPrefix(sensorId);
      const seek = (c: Cursor) => (c.goToRange(Buffer.concat([prefix, MAX_TS])) ? c.goToPrev() : c.goToLast());
      return read((txn, d) => walk(txn, d, seek, 'goToPrev', (key) => hasPrefix(key, prefix), count).n);
    },
    queryWindow(w: Window) {
      const to = keyOf(w.sensorId, w.to);
      return read((txn, d) => walk(txn, d, (c) => c.goToRange(keyOf(w.sensorId, w.from)), 'goToNext', (key) => key.compare(to) <= 0, Infinity).n);
    },
    incrementCounter(k) {
      write((txn, d) => {
        const key = keyOf(k.sensorId, k.ts);
        const value = txn.getBinary(d, key);
        if (!value) return;
        const item = cbor.decode(value) as Stored;
        item.c = (item.c ?? 0) + 1;
        txn.putBinary(d, key, cbor.encode(item));
      });
    },
    putIfAbsent(r) {
      return write((txn, d) => {
        const key = keyOf(r.sensorId, r.ts);
        if (txn.getBinary(d, key)) return 0;
        txn.putBinary(d, key, cbor.encode(r));
        return 1;
      });
    },
    setNoFlush(noSync) {
      // node-lmdb sets env flags at open only.
      const dir = path!;
      closeEnv();
      openAt(dir, noSync);
    },
    close() {
      closeEnv();
    },
  };
}

/** After goToRange(after): step past `after` itself when it is still there (an exclusive start). */
function skipEqual(cursor: Cursor, key: Buffer | null, after: Buffer): Buffer | null {
  return key && key.equals(after) ? cursor.goToNext() : key;
}
