/**
 * Suite `twoway`: the down direction of two-way sync (issue 17), hub to device over MQTT.
 *
 * Broker: MQTT_URL when set, else an embedded aedes broker (in the hub's process). The hub runs in
 * its own process (bench/two-way-hub-child.ts, durable store) and a back office writes readings
 * there through the hub's DynamoDB API (AWS SDK, BatchWriteItem x25, 4 calls in flight); the
 * device (relaxed store) runs here and subscribes to the whole table (`direction: 'down'`), which
 * it does not have: it creates it from the hub's definition.
 *
 * - Hub to device: with the device subscribed and caught up, the hub writes N readings; records/s
 *   from the first write issued at the hub to the device holding all N (its table's item count,
 *   polled every POLL_MS).
 * - Catch-up: the device subscribes, then stops its sync; N readings accumulate at the hub; the
 *   device starts again, and the time until it holds all N is the catch-up time.
 *
 * Sizes: full 10,000 / 10,000, quick 1,000 / 1,000; BENCH_TWOWAY_RECORDS overrides both. Without
 * the down direction (startSync does not take the two-way `tables` form) the suite reports that and
 * measures nothing.
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixed, int, table, type SuiteOptions, type SuiteReport } from '../suite.js';
import { benchDir, openBenchStore } from './readings-table.js';
import type { TwoWayHubMessage } from '../two-way-hub-child.js';
import type { Edgetable } from '../../src/edgetable.js';
import type { SyncHandle } from '../../src/sync/sync-options.js';

const here = dirname(fileURLToPath(import.meta.url));
const SIZES = {
  full: { downRecords: 10_000, catchUpRecords: 10_000 },
  quick: { downRecords: 1_000, catchUpRecords: 1_000 },
};
const WARM_RECORDS = 200;
const POLL_MS = 20;
/** A run that has not converged after this long is reported as timed out. */
const RUN_TIMEOUT_MS = 180_000;

interface Run {
  name: string;
  records: number;
  /** From the first hub write (streaming) or the restart (catch-up) to the device holding them all. */
  seconds: number;
  recordsPerSecond: number;
  /** How long the hub's API took to take the writes. */
  hubWriteSeconds: number;
}

type HubChild = { url: string; broker: string; request(m: object): Promise<TwoWayHubMessage> };

export async function runTwoWaySuite({ quick, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  const override = Number(process.env.BENCH_TWOWAY_RECORDS);
  const sizes = override > 0 ? { downRecords: override, catchUpRecords: override } : quick ? SIZES.quick : SIZES.full;
  const report = (markdown: string, data: unknown): SuiteReport => ({ suite: 'twoway', date: new Date().toISOString(), mode: quick ? 'quick' : 'full', seconds: (performance.now() - started) / 1000, markdown, data });
  const why = await downDirectionMissing();
  if (why) {
    log(`twoway: skipped: ${why}`);
    return report(`### Two-way sync, hub to device (\`--suite twoway\`)\n\nNot measured: ${why}.\n`, { skipped: why });
  }
  const hubDir = benchDir('twoway-hub');
  const hub = await startHubChild(hubDir.path, process.env.MQTT_URL);
  log(`twoway: broker ${hub.broker} at ${hub.url}`);
  const deviceId = `bench-down-${process.pid}`;
  const runs: Run[] = [];
  try {
    runs.push(await streaming(hub, deviceId, 'TwoWayDown', sizes.downRecords, log));
    runs.push(await catchUp(hub, deviceId, 'TwoWayCatchUp', sizes.catchUpRecords, log));
  } finally {
    await hub.request({ stop: { clearRetained: [] } });
    hubDir.remove();
  }
  return report(render(hub.broker, runs), { sizes, broker: hub.broker, runs });
}

/** Why the down direction cannot be measured here, or undefined when it can. */
async function downDirectionMissing(): Promise<string | undefined> {
  const dir = benchDir('twoway-probe');
  const db = openBenchStore(dir.path, 'relaxed');
  try {
    // A port nothing listens on: the agent starts (and keeps reconnecting) without a broker.
    const sync = await db.startSync({ url: 'mqtt://127.0.0.1:9', deviceId: 'probe', tables: [{ name: 'Probe', direction: 'down' }] as never });
    await sync.stop();
    return undefined;
  } catch (err) {
    return `this build's startSync does not take the two-way tables form (${(err as Error).message})`;
  } finally {
    db.close();
    dir.remove();
  }
}

async function streaming(hub: HubChild, deviceId: string, tableName: string, records: number, log: (line: string) => void): Promise<Run> {
  await expect(hub.request({ create: { table: tableName } }), 'created');
  const device = deviceStore(tableName);
  let sync: SyncHandle | undefined;
  try {
    sync = await device.db.startSync({ url: hub.url, deviceId, tables: [{ name: tableName, direction: 'down' }] as never });
    // Warm-up: the subscription, the table's creation on the device, the first records.
    await expect(hub.request({ write: { table: tableName, from: records, to: records + WARM_RECORDS } }), 'written');
    await holds(device.db, tableName, WARM_RECORDS);
    const t0 = performance.now();
    const written = expect(hub.request({ write: { table: tableName, from: 0, to: records } }), 'written');
    await holds(device.db, tableName, WARM_RECORDS + records);
    const seconds = (performance.now() - t0) / 1000;
    const hubWriteSeconds = (await written).written.seconds;
    log(`twoway: hub to device: ${int(records / seconds)} records/s (${int(records)} in ${fixed(seconds, 2)} s; the hub took the writes in ${fixed(hubWriteSeconds, 2)} s)`);
    return { name: 'hub to device, streaming', records, seconds, recordsPerSecond: records / seconds, hubWriteSeconds };
  } finally {
    await sync?.stop();
    device.remove();
  }
}

async function catchUp(hub: HubChild, deviceId: string, tableName: string, records: number, log: (line: string) => void): Promise<Run> {
  await expect(hub.request({ create: { table: tableName } }), 'created');
  const device = deviceStore(tableName);
  const subscribe = () => device.db.startSync({ url: hub.url, deviceId, tables: [{ name: tableName, direction: 'down' }] as never });
  let sync: SyncHandle | undefined;
  try {
    sync = await subscribe();
    await expect(hub.request({ write: { table: tableName, from: records, to: records + WARM_RECORDS } }), 'written');
    await holds(device.db, tableName, WARM_RECORDS);
    await sync.stop();
    sync = undefined;
    const { written } = await expect(hub.request({ write: { table: tableName, from: 0, to: records } }), 'written');
    log(`twoway: ${int(records)} readings written at the hub in ${fixed(written.seconds, 2)} s while the device was offline`);
    const t0 = performance.now();
    sync = await subscribe();
    await holds(device.db, tableName, WARM_RECORDS + records);
    const seconds = (performance.now() - t0) / 1000;
    log(`twoway: catch-up of ${int(records)} records in ${fixed(seconds, 2)} s`);
    return { name: 'catch-up after offline', records, seconds, recordsPerSecond: records / seconds, hubWriteSeconds: written.seconds };
  } finally {
    await sync?.stop();
    device.remove();
  }
}

function deviceStore(tableName: string): { db: Edgetable; remove(): void } {
  const dir = benchDir(`twoway-${tableName}`);
  const db = openBenchStore(dir.path, 'relaxed', 512 * 2 ** 20);
  return {
    db,
    remove: () => {
      if (!db.store.closed) db.close();
      dir.remove();
    },
  };
}

/** Resolves once the device's copy of the table holds `count` items. */
async function holds(db: Edgetable, tableName: string, count: number): Promise<void> {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  for (;;) {
    if (db.context.catalog.find(tableName) && itemCount(db, tableName) >= count) return;
    if (Date.now() > deadline) throw new Error(`the device did not receive ${count} items of ${tableName} within ${RUN_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function itemCount(db: Edgetable, tableName: string): number {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = db.execute('Scan', { TableName: tableName, Select: 'COUNT', ...(start ? { ExclusiveStartKey: start } : {}) }) as { Count: number; LastEvaluatedKey?: Record<string, unknown> };
    count += page.Count;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

async function expect<K extends string>(reply: Promise<TwoWayHubMessage>, key: K): Promise<Extract<TwoWayHubMessage, Record<K, unknown>>> {
  const m = await reply;
  if (!(key in m)) throw new Error(`two-way hub: ${'error' in m ? m.error : `expected ${key}, got ${JSON.stringify(m)}`}`);
  return m as Extract<TwoWayHubMessage, Record<K, unknown>>;
}

async function startHubChild(path: string, url: string | undefined): Promise<HubChild> {
  const child = fork(join(here, '..', 'two-way-hub-child.ts'), [JSON.stringify({ path, ...(url ? { url } : {}) })], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<TwoWayHubMessage>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`two-way hub process exited with code ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolve(m as TwoWayHubMessage);
      });
    });
  const ready = await next();
  if (!('ready' in ready)) {
    child.kill();
    throw new Error(`two-way hub: ${'error' in ready ? ready.error : 'unexpected message'}`);
  }
  return {
    url: ready.ready.url,
    broker: ready.ready.broker === 'external' ? `MQTT_URL (${ready.ready.url})` : 'embedded aedes (MQTT_URL not set)',
    request: (m) => {
      const reply = next();
      child.send(m);
      return reply;
    },
  };
}

function render(broker: string, runs: Run[]): string {
  return [
    '### Two-way sync, hub to device (`--suite twoway`)',
    '',
    `Broker: ${broker}. Hub in its own process (durable store); a back office writes 180-byte readings there through the hub's DynamoDB API (AWS SDK, BatchWriteItem x25, 4 calls in flight). The device (relaxed store, in the bench process) subscribes to the whole table with \`direction: 'down'\` and creates it from the hub's definition. Records/s = records from the first hub write (streaming) or the device's restart (catch-up) to the device holding them all.`,
    '',
    ...table(
      ['run', 'records', 'records/s (hub write -> on the device)', 'total', 'hub API took the writes in'],
      runs.map((r) => [r.name, int(r.records), int(r.recordsPerSecond), `${fixed(r.seconds, 2)} s`, `${fixed(r.hubWriteSeconds, 2)} s${r.name.startsWith('catch-up') ? ' (offline, before)' : ''}`]),
      'lrrrr',
    ),
    '',
  ].join('\n');
}
