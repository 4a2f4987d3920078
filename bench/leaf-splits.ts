/**
 * How often a single put splits a leaf, as a function of the stored value's size: node-lmdb
 * directly, the bench's sensor workload shape (1,000 sensors, `rounds` readings each loaded in
 * batches of 25 consecutive sensors, then `puts` more rounds of one durable-shaped txn per
 * reading), keys either as edgetable's partition-id layout places them (4-byte id + 8-byte
 * timestamp) or as the raw contender's (sensor name + 0x00 + timestamp). Prints one JSON line per
 * case: leaf pages added per put (each one a page more written by that commit) and items per
 * leaf. Runs on /dev/shm (page counts do not depend on the device). A measurement: it never fails
 * on a figure.
 *
 *   tsx bench/leaf-splits.ts [rounds=110] [puts=3]
 *
 * Bench-only exception to "node-lmdb only in storage/": this file measures LMDB itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { lmdb, type Dbi, type Env } from './node-lmdb.js';

const SENSORS = 1000;
const BATCH = 25;
const rounds = Number(process.argv[2] ?? 110);
const puts = Number(process.argv[3] ?? 3);

function keyOf(layout: 'partition-id' | 'name', sensor: number, reading: number): Buffer {
  const ts = BigInt(1_700_000_000_000 + reading * 60_000 + sensor);
  if (layout === 'partition-id') {
    const key = Buffer.alloc(12);
    key.writeUInt32BE(sensor, 0);
    key.writeBigUInt64BE(ts, 4);
    return key;
  }
  const name = Buffer.from(`sensor-${String(sensor).padStart(4, '0')}`);
  const key = Buffer.alloc(name.length + 9);
  name.copy(key);
  key.writeBigUInt64BE(ts, name.length + 1);
  return key;
}

function leaves(env: Env, dbi: Dbi): { treeLeafPageCount: number; entryCount: number } {
  const txn = env.beginTxn({ readOnly: true });
  const stat = dbi.stat(txn);
  txn.abort();
  return stat;
}

function measure(layout: 'partition-id' | 'name', valueBytes: number): void {
  const dir = mkdtempSync(join('/dev/shm', 'leaf-splits-'));
  const env = new lmdb.Env();
  env.open({ path: dir, mapSize: 2 * 1024 ** 3, maxDbs: 4 });
  const dbi = env.openDbi({ name: 'readings', create: true, keyIsBuffer: true });
  const value = Buffer.alloc(valueBytes, 7);
  for (let r = 0; r < rounds; r++) {
    for (let first = 0; first < SENSORS; first += BATCH) {
      const txn = env.beginTxn();
      for (let s = first; s < first + BATCH; s++) txn.putBinary(dbi, keyOf(layout, s, r), value);
      txn.commit();
    }
  }
  const before = leaves(env, dbi).treeLeafPageCount;
  for (let r = rounds; r < rounds + puts; r++) {
    for (let s = 0; s < SENSORS; s++) {
      const txn = env.beginTxn();
      txn.putBinary(dbi, keyOf(layout, s, r), value);
      txn.commit();
    }
  }
  const after = leaves(env, dbi);
  const leafSplitsPerPut = (after.treeLeafPageCount - before) / (puts * SENSORS);
  console.log(JSON.stringify({ layout, valueBytes, leafSplitsPerPut: +leafSplitsPerPut.toFixed(3), itemsPerLeaf: +(after.entryCount / after.treeLeafPageCount).toFixed(1) }));
  env.close();
  rmSync(dir, { recursive: true, force: true });
}

// 137 bytes: edgetable's record of a bench reading (coded names); 221: the raw contender's cbor-x value.
for (const valueBytes of [100, 137, 160, 180, 221, 260]) {
  measure('partition-id', valueBytes);
  measure('name', valueBytes);
}
