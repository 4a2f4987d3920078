/**
 * `npx tsx bench/redo-policy.ts <batch|single|pin> [commits...]`: what durability 'log''s
 * checkpoint interval costs and saves (docs/decisions/010-redo-log-durability.md).
 * - batch: 4,400 durable write txns of 25 sensor readings each (1,000 sensors in turn, 140-byte
 *   values), in a loop that never yields, with LMDB's durable commit ('sync') and with the redo
 *   log checkpointing every n commits: µs per txn, data.mdb's size, checkpoints.
 * - single: the same load in one txn per 25, then 3,000 single puts timed.
 * - pin: node-lmdb alone, no flushes: the same load with a read txn pinned and moved every n
 *   commits (0: never), and the map's last page at the end: how fast LMDB reuses pages freed
 *   under a pin once it moves.
 * A probe: it prints figures and judges nothing.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEnv } from '../src/storage/lmdb-binding.js';
import { Store } from '../src/storage/store.js';

const [mode = 'batch', ...rest] = process.argv.slice(2);
const intervals = rest.length > 0 ? rest.map(Number) : [0, 8, 16, 32, 0];
const BATCHES = 4400;

const key = (sensor: number, seq: number): Buffer => {
  const k = Buffer.alloc(12);
  k.writeUInt32BE(sensor);
  k.writeBigUInt64BE(BigInt(seq), 4);
  return k;
};

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'edgetable-redo-policy-'));
}

function openStore(dir: string, commits: number): Store {
  const options = commits === 0 ? { durability: 'sync' as const } : { durability: 'log' as const, checkpoint: { commits, bytes: 1 << 30, pages: 1 << 30 } };
  return Store.open({ path: join(dir, 'db'), mapSizeBytes: 256 * 1024 * 1024, ...options });
}

function load(store: Store): void {
  const db = store.database('items');
  for (let b = 0; b < BATCHES; b++) {
    store.write((txn) => {
      for (let i = 0; i < 25; i++) txn.put(db, key((b * 25 + i) % 1000, b), Buffer.alloc(140, b % 256));
    });
  }
}

const mib = (dir: string): string => (statSync(join(dir, 'db', 'data.mdb')).size / 2 ** 20).toFixed(1);
const label = (commits: number): string => (commits === 0 ? "'sync'" : `'log', every ${commits} commits`);

for (const commits of intervals) {
  const dir = folder();
  try {
    if (mode === 'pin') {
      const env = createEnv();
      env.open({ path: dir, mapSize: 1 << 30, maxDbs: 4, maxReaders: 16, readOnly: false, noMetaSync: false, noSync: true });
      const dbi = env.openDbi({ name: 'items', create: true, keyIsBuffer: true });
      let pin = env.beginTxn({ readOnly: true });
      for (let b = 0; b < BATCHES; b++) {
        const txn = env.beginTxn();
        for (let i = 0; i < 25; i++) txn.putBinary(dbi, key((b * 25 + i) % 1000, b), Buffer.alloc(140, b % 256));
        txn.commit();
        if (commits > 0 && b % commits === 0) {
          pin.abort();
          pin = env.beginTxn({ readOnly: true });
        }
      }
      console.log(`pin moved ${commits === 0 ? 'never' : `every ${commits} commits`}: last page ${env.info().lastPageNumber}`);
      pin.abort();
      env.close();
      continue;
    }
    const store = openStore(dir, commits);
    if (mode === 'batch') {
      const t0 = performance.now();
      load(store);
      const us = ((performance.now() - t0) * 1000) / BATCHES;
      console.log(`${label(commits)}: ${us.toFixed(0)} us per 25-item txn, data.mdb ${mib(dir)} MiB, ${store.checkpointCount} checkpoints`);
    } else {
      load(store);
      const db = store.database('items');
      const puts = 3000;
      const t0 = performance.now();
      for (let j = 0; j < puts; j++) store.write((txn) => txn.put(db, key(j % 1000, 100_000 + j), Buffer.alloc(140, 2)));
      const rate = puts / ((performance.now() - t0) / 1000);
      console.log(`${label(commits)}: ${rate.toFixed(0)} single puts/s, data.mdb ${mib(dir)} MiB, ${store.checkpointCount} checkpoints`);
    }
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
