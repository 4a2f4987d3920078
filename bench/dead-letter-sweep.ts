/**
 * The dead letters' sweep (src/hub/dead-letter-bounds.ts) at the default cap: fills a store's
 * dead-letter table with `items` dead letters (200-byte records, as a device's refused records
 * are), then times countDeadLetters and one trimDeadLetters that keeps `keep` of them, and the
 * longest event-loop pause during the sweep (a 1 ms interval timer's largest gap). Relaxed
 * durability for the fill; the sweep's deletes go through db.promises as the hub's do. Prints one
 * JSON line (docs/sync.md, "Bounds"). A measurement: it never fails on a figure.
 *
 *   tsx bench/dead-letter-sweep.ts [items=100000] [keep=90000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../src/edgetable.js';
import { countDeadLetters, trimDeadLetters } from '../src/hub/dead-letter-bounds.js';
import { DEAD_LETTER_TABLE } from '../src/replication/dead-letters.js';

const items = Number(process.argv[2] ?? 100_000);
const keep = Number(process.argv[3] ?? 90_000);
const dir = mkdtempSync(join(tmpdir(), 'etb-dead-letter-sweep-'));
const db = open({ path: dir, durability: 'relaxed' });
try {
  db.replica.deadLetters();
  const now = Date.now();
  const record = new Uint8Array(200).fill(7);
  for (let i = 0; i < items; i += 25) {
    const puts = [];
    for (let j = i; j < Math.min(items, i + 25); j++) {
      puts.push({ PutRequest: { Item: { stream: { S: `van-${j % 50}/inc/Readings/t/0` }, seq: { N: String(j) }, reason: { S: 'validation' }, refusedAt: { N: String(now - items + j) }, record: { B: record } } } });
    }
    db.batchWriteItem({ RequestItems: { [DEAD_LETTER_TABLE]: puts } });
  }
  countDeadLetters(db); // the first DescribeTable loads what later ones reuse
  let t = performance.now();
  const count = countDeadLetters(db);
  const countMs = performance.now() - t;
  let maxPauseMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const n = performance.now();
    maxPauseMs = Math.max(maxPauseMs, n - last);
    last = n;
  }, 1);
  t = performance.now();
  const trimmed = await trimDeadLetters(db, { maxItems: keep, retentionMs: 86_400_000 }, now);
  const sweepMs = performance.now() - t;
  clearInterval(timer);
  console.log(JSON.stringify({ items: count, keep, ...trimmed, countMs: +countMs.toFixed(3), sweepMs: Math.round(sweepMs), maxPauseMs: +maxPauseMs.toFixed(1), left: countDeadLetters(db) }));
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
