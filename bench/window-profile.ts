/**
 * The window Query of issue 48 at sensor scale, for a CPU profile: `load DIR [readingsPerSensor=1000]`
 * writes SENSORS x readingsPerSensor readings in round-robin arrival (batchWriteItem, 25 per
 * request, durability 'relaxed': the layout is the same as a durable load's, only faster to make);
 * `query DIR [queries=20000] [span=100]` runs windows of `span` readings of random sensors through the
 * embedded API and prints queries/s and µs per item. Profile with
 * `node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/window-profile.ts query DIR`, then
 * `npx tsx bench/profile-summary.ts FILE 30 query`.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { open } from '../src/index.js';
import { wireItem } from './contenders/edgetable.js';
import { createReadingsTable, READINGS } from './suites/readings-table.js';
import { READING_INTERVAL_MS, reading, rng, SENSORS, sensorId, timestamp } from './workload.js';

const [mode, dir, a, b] = process.argv.slice(2);
if ((mode !== 'load' && mode !== 'query') || dir === undefined) throw new Error('usage: window-profile.ts load|query DIR [n] [span]');

const TABLE = READINGS;
if (mode === 'load') {
  const perSensor = Number(a ?? 1000);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const db = open({ path: dir, durability: 'relaxed', mapSizeBytes: 2 * 2 ** 30, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
  createReadingsTable(db, 'none');
  const total = SENSORS * perSensor;
  const t0 = performance.now();
  for (let i = 0; i < total; ) {
    const batch = [];
    for (const end = Math.min(i + 25, total); i < end; i++) batch.push({ PutRequest: { Item: wireItem(reading(i % SENSORS, Math.floor(i / SENSORS))) } });
    db.batchWriteItem({ RequestItems: { [TABLE]: batch } });
  }
  console.log(`loaded ${total} readings in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  db.close();
} else {
  const queries = Number(a ?? 20_000);
  const span = Number(b ?? 100);
  const db = open({ path: dir, mapSizeBytes: 2 * 2 ** 30, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
  const perSensor = 1000;
  const r = rng(48);
  const windows = Array.from({ length: queries }, () => {
    const s = Math.floor(r() * SENSORS);
    const i = Math.floor(r() * (perSensor - span + 1));
    return { ':s': { S: sensorId(s) }, ':from': { N: String(timestamp(s, i)) }, ':to': { N: String(timestamp(s, i) + (span - 1) * READING_INTERVAL_MS) } };
  });
  const run = (n: number) => {
    let items = 0;
    for (let k = 0; k < n; k++) {
      const out = db.query({ TableName: TABLE, KeyConditionExpression: 'sensorId = :s AND ts BETWEEN :from AND :to', ExpressionAttributeValues: windows[k]! });
      items += out.Items?.length ?? 0;
    }
    return items;
  };
  run(Math.min(2000, queries));
  const t0 = performance.now();
  const items = run(queries);
  const ms = performance.now() - t0;
  console.log(`${queries} windows of ${span}: ${Math.round(queries / (ms / 1000))} queries/s, ${((ms * 1000) / items).toFixed(2)} µs per item (${items} items)`);
  db.close();
}
