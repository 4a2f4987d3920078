/**
 * `npx tsx bench/migrate-text.ts [readings]`: what the one-time migration to text records
 * (src/table/text-records.ts) costs a writable open of an older store. Writes `readings` sensor
 * readings (bench/workload.ts, default 100,000) through the engine, turns the store into what a
 * format 2 build left (records without trailers, no text-values marker: the test fixture
 * test/storage/fixtures/legacy-records.ts), then times the open that migrates it, against an open
 * of the same store once migrated. Durable store ('sync'): each of the migration's txns flushes.
 * Prints the times; measures, never fails on a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../src/edgetable.js';
import { setRawFormatMarker, markerOf } from '../test/storage/fixtures/raw-format-marker.js';
import { stripTextTrailers } from '../test/storage/fixtures/legacy-records.js';
import { wireItem } from './contenders/edgetable.js';
import { BATCH_SIZE, SENSORS, reading } from './workload.js';

const readings = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'edgetable-migrate-'));
const options = { path: dir, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 };
try {
  const db = open(options);
  db.createTable({
    TableName: 'Readings',
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [{ AttributeName: 'sensorId', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'sensorId', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
  });
  for (let i = 0; i < readings; i += BATCH_SIZE) {
    const batch = [];
    for (let j = i; j < Math.min(readings, i + BATCH_SIZE); j++) batch.push({ PutRequest: { Item: wireItem(reading(j % SENSORS, Math.floor(j / SENSORS))) } });
    db.batchWriteItem({ RequestItems: { Readings: batch } });
  }
  db.close();
  const stripped = stripTextTrailers(dir);
  setRawFormatMarker(dir, markerOf(2));
  const timedOpen = () => {
    const t0 = performance.now();
    const opened = open(options);
    const ms = performance.now() - t0;
    const textReads = opened.store.textReads;
    opened.close();
    return { ms, textReads };
  };
  const migrating = timedOpen();
  const again = timedOpen();
  console.log(`${readings} readings, ${stripped} records without trailers`);
  console.log(`open that migrates: ${migrating.ms.toFixed(0)} ms (text reads after: ${migrating.textReads})`);
  console.log(`open once migrated: ${again.ms.toFixed(1)} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
