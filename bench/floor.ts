/**
 * `npx tsx bench/floor.ts`: what bounds edgetable's reads, measured on the contenders' item
 * (bench/workload.ts) in 100,000 item records of 1,000 partition keys (100 each), as the storage
 * layer stores them. Prints ns per item (best of several passes; never fails on a time):
 *
 * - the native steps in isolation (node-lmdb 0.10.1): a cursor step that returns its key (a copied
 *   Buffer), the value read at the cursor (which copies the key again and the value), the same two
 *   on a head cursor (keys as a 4-byte number: only the value is a Buffer), the value read as a
 *   string instead (records are text values, storage/text-values.ts), a point get as a Buffer and
 *   as a string, the Buffer-free getNumber, a cursor open+close and a read txn renew+reset;
 * - the storage walks: ReadTxn.each and ReadTxn.eachValue (no key beyond the first block), values
 *   read as text, doing nothing per item;
 * - eachValue plus decoding every record to the response form: the floor of a Scan; what a Scan
 *   spends above it is the engine's per-request and per-item work.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../src/storage/store.js';
import { decodeRecordToWire, encodeItemRecord } from '../src/codec/item-record.js';
import { itemSize } from '../src/model/item-size.js';
import { validateItem } from '../src/model/validate-attribute-value.js';
import { wireItem } from './contenders/edgetable.js';
import { reading } from './workload.js';

const ITEMS = 100_000;
const PASSES = 7;
const keyOf = (i: number): Uint8Array => {
  const key = new Uint8Array(12);
  new DataView(key.buffer).setUint32(0, i % 1000);
  new DataView(key.buffer).setFloat64(4, i);
  return key;
};
const dir = mkdtempSync(join(tmpdir(), 'edgetable-floor-'));
const store = Store.open({ path: dir, durability: 'relaxed', mapSizeBytes: 256 * 2 ** 20 });
try {
  store.write((txn) => store.markTextValues(txn));
  const db = store.database('items', { textValues: true });
  store.write((txn) => {
    for (let i = 0; i < ITEMS; i++) {
      const item = validateItem(wireItem(reading(i % 1000, Math.floor(i / 1000))));
      txn.put(db, keyOf(i), encodeItemRecord(item, itemSize(item)));
    }
  });
  const keys = Array.from({ length: ITEMS }, (_, i) => keyOf((i * 7919) % ITEMS));
  const results: [string, number][] = [];
  /** Best ns per item over PASSES passes of `pass`, which returns the items it handled. */
  const measure = (label: string, pass: () => number): void => {
    let best = Number.POSITIVE_INFINITY;
    for (let p = 0; p < PASSES; p++) {
      const t0 = performance.now();
      const n = pass();
      best = Math.min(best, ((performance.now() - t0) * 1e6) / n);
    }
    results.push([label, best]);
  };

  // The native steps, on node-lmdb directly (bench-only, as the raw contender does).
  const lmdb = createRequire(import.meta.url)('node-lmdb') as {
    Cursor: new (txn: unknown, dbi: unknown, options: object) => {
      goToFirst(): unknown;
      goToNext(): unknown;
      getCurrentBinary(): Buffer | null;
      getCurrentString(): string | null;
      close(): void;
    };
  };
  store.read((txn) => {
    const native = (txn as unknown as { native: { getBinary(d: unknown, k: Uint8Array): unknown; getString(d: unknown, k: Uint8Array): unknown; getNumber(d: unknown, k: Uint8Array): unknown; reset(): void; renew(): void } }).native;
    const dbi = db.handle!;
    const walk = (options: object, value: boolean | 'string') => () => {
      const c = new lmdb.Cursor(native, dbi, options);
      let n = 0;
      for (let k = c.goToFirst(); k !== null; k = c.goToNext()) {
        if (value === 'string') c.getCurrentString();
        else if (value) c.getCurrentBinary();
        n++;
      }
      c.close();
      return n;
    };
    measure('native: cursor step, key as a Buffer', walk({ keyIsBuffer: true }, false));
    measure('native: step + value read (3 Buffers)', walk({ keyIsBuffer: true }, true));
    measure('native: head cursor step (key as a number)', walk({ keyIsUint32: true }, false));
    measure('native: head step + value read (1 Buffer)', walk({ keyIsUint32: true }, true));
    measure('native: head step + value as a string', walk({ keyIsUint32: true }, 'string'));
    measure('native: point get (value Buffer)', () => {
      for (const k of keys) native.getBinary(dbi, k);
      return keys.length;
    });
    measure('native: point get (value as a string)', () => {
      for (const k of keys) native.getString(dbi, k);
      return keys.length;
    });
    measure('native: getNumber (no Buffer)', () => {
      for (const k of keys) native.getNumber(dbi, k);
      return keys.length;
    });
    measure('native: cursor open + close', () => {
      for (let i = 0; i < 20_000; i++) new lmdb.Cursor(native, dbi, { keyIsBuffer: true }).close();
      return 20_000;
    });
    measure('native: read txn renew + reset', () => {
      native.reset();
      for (let i = 0; i < 20_000; i++) {
        native.renew();
        native.reset();
      }
      native.renew();
      return 20_000;
    });
  });
  const storageWalk = (each: 'each' | 'eachValue', visit: (record: Uint8Array) => void) => () => {
    let n = 0;
    store.read((txn) => txn[each](db, {}, (record: Uint8Array) => (visit(record), ++n > 0)));
    return n;
  };
  measure('ReadTxn.each, nothing per item', storageWalk('each', () => {}));
  measure('ReadTxn.eachValue, nothing per item', storageWalk('eachValue', () => {}));
  measure('eachValue + decode to the response form', storageWalk('eachValue', (record) => decodeRecordToWire(record)));
  measure('storage get (text read), nothing per item', () => {
    store.read((txn) => {
      for (const k of keys) txn.get(db, k);
    });
    return keys.length;
  });
  for (const [label, ns] of results) console.log(`${label.padEnd(44)} ${ns.toFixed(0).padStart(6)} ns/item`);
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
