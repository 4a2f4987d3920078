/**
 * The fleet test's device host: `fleet-device.ts CONFIG_JSON` runs one device (the default: one
 * process per device, so a SIGKILL is a real one) or all of them (--in-process: 50 devices on 2
 * cores), driven by the parent over IPC (test/sync/harness/child-process.ts). Each device opens
 * its folder with its engine clock at `Date.now() + clockOffsetMs` (the engine's `now` option,
 * which the change log's HLC reads: a stepped device clock), creates WorkOrders and Readings (TTL
 * on `expires`, swept every 2 s) when missing, starts sync with fleet-world.ts's tables, and the
 * host sends `ready` with every device's incarnation. Calls name their device; one device's calls
 * run one at a time in arrival order, devices' calls interleave:
 *   write { device, table, op }      as the convergence harness's devices write (device-write.ts)
 *   stop-sync / start-sync / status / flushed { timeoutMs } { device }
 *   step-clock { device, stepMs }    moves the engine clock (kept across a re-open by the parent)
 *   crash { device }                 in-process stand-in for SIGKILL: sync stopped without waiting
 *                                    for its writes to be acknowledged, store closed
 *   open { device, clockOffsetMs }   opens a crashed device again (or a re-flashed, empty folder)
 *   close                            every device, then the process exits
 */
import { open, type Edgetable } from '../../src/edgetable.js';
import type { OperationName } from '../../src/ops/operations.js';
import type { SyncHandle, SyncOptions } from '../../src/sync/sync-options.js';
import { sendEvent } from '../sync/harness/child-process.js';
import { writeWithClock } from '../sync/harness/device-write.js';
import { writeRequest, type Op } from '../sync/harness/workload.js';
import { TTL_ATTRIBUTE, UP_TABLE, definitionOf, type FleetTable } from './fleet-world.js';

export type FleetDeviceConfig = {
  readonly index: number;
  readonly path: string;
  readonly url: string;
  readonly deviceId: string;
  readonly namespace: string;
  readonly tables: readonly unknown[];
  readonly ackTimeoutMs: number;
  readonly clockOffsetMs: number;
};

type Device = { config: FleetDeviceConfig; db: Edgetable; sync: SyncHandle | undefined; offsetMs: number; chain: Promise<void> };

const TTL_SWEEP_INTERVAL_MS = 2000;
const configs = JSON.parse(process.argv[2]!) as FleetDeviceConfig[];
const devices = new Map<number, Device>();

async function openDevice(config: FleetDeviceConfig): Promise<Device> {
  const d: Device = { config, db: undefined as never, sync: undefined, offsetMs: config.clockOffsetMs, chain: Promise.resolve() };
  d.db = open({ path: config.path, now: () => Date.now() + d.offsetMs, ttlSweepIntervalMs: TTL_SWEEP_INTERVAL_MS });
  const have = new Set((d.db.execute('ListTables', {}) as { TableNames: string[] }).TableNames);
  for (const table of ['WorkOrders', UP_TABLE] as const) {
    if (have.has(table)) continue;
    d.db.createTable(definitionOf(table));
    if (table === UP_TABLE) d.db.execute('UpdateTimeToLive', { TableName: table, TimeToLiveSpecification: { Enabled: true, AttributeName: TTL_ATTRIBUTE } });
  }
  await startSync(d);
  devices.set(config.index, d);
  return d;
}

async function startSync(d: Device): Promise<void> {
  const c = d.config;
  d.sync ??= await d.db.startSync({ url: c.url, namespace: c.namespace, deviceId: c.deviceId, tables: c.tables as SyncOptions['tables'], ackTimeoutMs: c.ackTimeoutMs });
}

async function handle(d: Device, cmd: string, args: Record<string, unknown>): Promise<unknown> {
  switch (cmd) {
    case 'write': {
      const { operation, request } = writeRequest(args['table'] as FleetTable, args['op'] as Op, d.config.deviceId);
      return writeWithClock(d.db, operation as OperationName, request);
    }
    case 'stop-sync': {
      const s = d.sync;
      d.sync = undefined;
      await s?.stop();
      return null;
    }
    case 'start-sync':
      await startSync(d);
      return null;
    case 'status':
      return d.sync?.status() ?? null;
    case 'flushed': {
      if (!d.sync) throw new Error('sync is stopped');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Number(args['timeoutMs']))));
      const done = await Promise.race([d.sync.flushed().then(() => true), timeout]);
      clearTimeout(timer);
      return done;
    }
    case 'step-clock':
      d.offsetMs += Number(args['stepMs']);
      return d.offsetMs;
    case 'crash': {
      // Other devices share this process: the store closes only once its agent has let go of it
      // (at most 2 s), or a timer of the agent would throw into every device's process.
      devices.delete(d.config.index);
      const stopping = d.sync?.stop().catch(() => undefined);
      d.sync = undefined;
      await Promise.race([stopping, new Promise((r) => setTimeout(r, 2000))]);
      d.db.close();
      return null;
    }
    default:
      throw new Error(`unknown command ${cmd}`);
  }
}

const incarnation = (d: Device) => d.sync!.status().incarnation;

process.on('message', (m: { id: number; cmd: string; device?: number } & Record<string, unknown>) => {
  const reply = (run: () => Promise<unknown>): Promise<void> =>
    run().then(
      (result) => void process.send!({ id: m.id, ok: true, result: result ?? null }),
      (err: Error) => void process.send!({ id: m.id, ok: false, error: `${err.name}: ${err.message}` }),
    );
  if (m.cmd === 'close') {
    void reply(async () => {
      await Promise.all([...devices.values()].map(async (d) => (await d.sync?.stop(), d.db.close())));
      setImmediate(() => process.exit(0));
    });
    return;
  }
  if (m.cmd === 'open') {
    const config = configs.find((c) => c.index === m.device)!;
    void reply(async () => incarnation(await openDevice({ ...config, clockOffsetMs: Number(m['clockOffsetMs'] ?? 0) })));
    return;
  }
  const d = devices.get(m.device!);
  if (!d) {
    void reply(() => Promise.reject(new Error(`device ${m.device} is not open`)));
    return;
  }
  // One device's calls in arrival order: its writes' order is the order the parent issued them.
  d.chain = d.chain.then(() => reply(() => handle(d, m.cmd, m)));
});
process.on('disconnect', () => process.exit(0));

const opened = await Promise.all(configs.map(openDevice));
sendEvent('ready', Object.fromEntries(opened.map((d) => [d.config.index, incarnation(d)])));
