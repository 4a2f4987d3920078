/**
 * The first sync of a table that already holds items (docs/sync.md, "First sync of a table that
 * holds data"): fills a store with `--items` readings (default 300,000), then runs the device's
 * first sync to a hub in a child process (bench/first-sync-child.ts, compiled: its memory is its
 * own) and reports the wall time until everything is acknowledged, the child's peak anonymous RSS
 * (/proc/self/status RssAnon sampled every 20 ms), and the device store's size before and after.
 * The hub (its own store) and the broker (embedded aedes, or MQTT_URL) run in this process.
 *
 *   npx tsx bench/first-sync.ts [--items 300000]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../src/index.js';
import { startHub } from '../src/hub/start-hub.js';
import { benchBroker } from './bench-broker.js';
import { compiled } from './compile.js';

const argItems = process.argv.indexOf('--items');
const ITEMS = argItems > 0 ? Number(process.argv[argItems + 1]) : 300_000;
const MIB = 1024 * 1024;

/** Bytes the folder's files occupy on disk (allocated blocks, not the map's reserved size). */
function folderBytes(path: string): number {
  return readdirSync(path).reduce((n, f) => n + statSync(join(path, f)).blocks * 512, 0);
}

function fill(path: string): void {
  const db = open({ path, durability: 'relaxed' });
  db.createTable({
    TableName: 'Readings',
    KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'sensor', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
    BillingMode: 'PAY_PER_REQUEST',
  });
  for (let i = 0; i < ITEMS; i += 25) {
    const puts = [];
    for (let j = i; j < Math.min(ITEMS, i + 25); j++) {
      const item = {
        sensor: { S: `sensor-${String(j % 1000).padStart(4, '0')}` },
        ts: { N: String(1_700_000_000_000 + j * 60_000) },
        temperature: { N: (15 + (j % 1500) / 100).toFixed(2) },
        humidity: { N: (30 + (j % 400) / 10).toFixed(1) },
        status: { S: j % 97 === 0 ? 'alarm' : 'ok' },
        location: { S: `site-${j % 17}/building-${j % 5}/room-${100 + (j % 40)}` },
      };
      puts.push({ PutRequest: { Item: item } });
    }
    db.batchWriteItem({ RequestItems: { Readings: puts } });
  }
  db.close();
}

const dir = mkdtempSync(join(tmpdir(), 'etb-first-sync-'));
const devicePath = join(dir, 'device');
const hubPath = join(dir, 'hub');
try {
  const filling = Date.now();
  fill(devicePath);
  console.log(`filled ${ITEMS} items in ${((Date.now() - filling) / 1000).toFixed(1)} s`);
  const before = folderBytes(devicePath);
  const broker = await benchBroker(process.env.MQTT_URL);
  const hubDb = open({ path: hubPath });
  const hub = startHub({ db: hubDb, url: broker.url });
  const child = fork(compiled('first-sync-child.ts'), [JSON.stringify({ path: devicePath, url: broker.url, deviceId: 'bench-device' })], { execArgv: [], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => void (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`the device process exited with ${code}`);
  const figures = JSON.parse(out.trim().split('\n').pop()!) as { wallMs: number; peakAnonRss: number; anonRssAtOpen: number; recordsAcked: number; batchesSent: number; outboxRecords: number };
  const atHub = hubDb.describeTable({ TableName: 'Readings' }).Table.ItemCount;
  await hub.stop();
  hubDb.close();
  await broker.close();
  const after = folderBytes(devicePath);
  console.log(`first sync of ${ITEMS} items (broker: ${broker.kind}): ${(figures.wallMs / 1000).toFixed(1)} s, ${Math.round(ITEMS / (figures.wallMs / 1000))} items/s; ${figures.batchesSent} batches, ${figures.recordsAcked} records acknowledged, hub holds ${atHub}`);
  console.log(`device process anonymous RSS: peak ${(figures.peakAnonRss / MIB).toFixed(1)} MiB (at open ${(figures.anonRssAtOpen / MIB).toFixed(1)} MiB)`);
  console.log(`device store: ${(before / MIB).toFixed(1)} MiB before, ${(after / MIB).toFixed(1)} MiB after; outbox records written ${figures.outboxRecords}`);
  if (atHub !== ITEMS) throw new Error(`the hub holds ${atHub} items, not ${ITEMS}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
