/**
 * `npx tsx bench/item-checksum.ts`: what a checksum per item record would cost on the read path
 * (docs/decisions/004-page-checksums.md). Times GetItem on a store of 20,000 items of each size
 * (random keys, warm), and the checksum a read would add: CRC-32 (zlib.crc32, native) over a
 * record of that size. Prints the time per op and the checksum's share of a GetItem. Measures,
 * never fails on a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { open } from '../src/edgetable.js';

const ITEMS = 20_000;
const READS = 200_000;

function timeNs(ops: number, fn: (i: number) => void): number {
  for (let i = 0; i < Math.min(ops, 20_000); i++) fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) fn(i);
  return Number(process.hrtime.bigint() - start) / ops;
}

for (const size of [100, 1000, 4000]) {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-checksum-'));
  const db = open({ path: join(dir, 'db'), durability: 'relaxed', checkOnOpen: 'never' });
  db.createTable({ TableName: 'bench', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
  const pad = 'x'.repeat(size);
  for (let i = 0; i < ITEMS; i += 25) {
    db.batchWriteItem({ RequestItems: { bench: Array.from({ length: 25 }, (_, j) => ({ PutRequest: { Item: { pk: { S: `k${i + j}` }, v: { S: pad } } } })) } });
  }
  const keys = Array.from({ length: READS }, () => ({ pk: { S: `k${Math.floor(Math.random() * ITEMS)}` } }));
  const get = timeNs(READS, (i) => db.getItem({ TableName: 'bench', Key: keys[i]! }));
  const value = Buffer.alloc(size + 20, 7);
  let sink = 0;
  const crc = timeNs(READS, () => (sink ^= crc32(value)));
  db.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(`${size} B items: GetItem ${(get / 1000).toFixed(2)} us; CRC-32 of the record ${(crc / 1000).toFixed(3)} us (${((100 * crc) / get).toFixed(1)}% of a GetItem)${sink === -1 ? ' ' : ''}`); // sink: keeps the CRC from being optimized away
}
