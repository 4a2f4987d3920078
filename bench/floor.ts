/**
 * `npx tsx bench/floor.ts`: what bounds edgetable's range reads, measured on the contenders' item
 * (bench/workload.ts): 100,000 item records in one database, walked with the storage layer's
 * cursor loop (ReadTxn.each) doing nothing per item (node-lmdb's native step: three copied
 * Buffers per item), and the same walk decoding every record to the response form. The
 * difference is the decoder; what remains above the walk+decode rate in a Scan is the engine's
 * per-request and per-item work. Prints items/s of the best of five passes; never fails on a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../src/storage/store.js';
import { encodeItemRecord, RECORD_HEADER_BYTES } from '../src/codec/item-record.js';
import { decodeItemToWire } from '../src/codec/item-value.js';
import { itemSize } from '../src/model/item-size.js';
import { validateItem } from '../src/model/validate-attribute-value.js';
import { wireItem } from './contenders/edgetable.js';
import { reading } from './workload.js';

const ITEMS = 100_000;
const dir = mkdtempSync(join(tmpdir(), 'edgetable-floor-'));
const store = Store.open({ path: dir, durability: 'relaxed', mapSizeBytes: 256 * 2 ** 20 });
try {
  const db = store.database('items');
  store.write((txn) => {
    for (let i = 0; i < ITEMS; i++) {
      const item = validateItem(wireItem(reading(i % 1000, Math.floor(i / 1000))));
      const key = new Uint8Array(12);
      new DataView(key.buffer).setUint32(0, i % 1000);
      new DataView(key.buffer).setFloat64(4, i);
      txn.put(db, key, encodeItemRecord(item, itemSize(item)));
    }
  });
  const rate = (visit: (record: Uint8Array) => boolean): number => {
    let best = 0;
    for (let pass = 0; pass < 5; pass++) {
      const t0 = performance.now();
      store.read((txn) => txn.each(db, {}, visit));
      best = Math.max(best, ITEMS / ((performance.now() - t0) / 1000));
    }
    return best;
  };
  const walk = rate(() => true);
  const decoded = rate((record) => decodeItemToWire(record, RECORD_HEADER_BYTES) !== undefined);
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(`cursor walk only: ${fmt(walk)} items/s (${(1e6 / walk).toFixed(2)} us/item)`);
  console.log(`walk + decode to the response form: ${fmt(decoded)} items/s (decode ${(1e6 / decoded - 1e6 / walk).toFixed(2)} us/item)`);
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
