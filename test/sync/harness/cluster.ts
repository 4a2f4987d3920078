/**
 * Runs one convergence scenario: a broker (broker.ts), a hub and several devices, each in its own
 * process on its own folder, driven through a seeded schedule (workload.ts) while every write is
 * recorded in the ledger (oracle.ts); then quiescence, a clean stop, and the final copies read
 * from the folders for checkConvergence.
 *
 * Faults run alongside the writes, not between them: a SIGKILL lands while batches, acks and
 * (two-way) down records are in flight, and while writes to the killed process are outstanding
 * (they end `maybe`). Writes to a process that is down or restarting are skipped (counted).
 *
 * Quiescence, from the processes' status: every device online with `flushed()` resolved (every
 * local record acknowledged by the hub), the hub online; two-way, every device's received table in
 * state 'delta' (its base read done, following the hub's log) and the hub serving each device's
 * subscription in state 'delta'; then nothing moving for a quiet window: the hub's applied counters
 * and clock, its down counters (messages and records sent, acks, time-outs) and every device's
 * status counters (acked, sent, received, superseded) unchanged. Two-way, the window is longer than
 * the hub's down ack timeout (DOWN_ACK_TIMEOUT_MS), so a down message lost in a broker restart
 * would have timed out, and moved a counter, inside it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import { open, type Edgetable } from '../../../src/edgetable.js';
import { SYNC_DB } from '../../../src/partition/database-names.js';
import { readVersion, type Version } from '../../../src/replication/hub-records.js';
import { readItemParam } from '../../../src/ops/request/item-request.js';
import { Topics } from '../../../src/sync/protocol/topics.js';
import type { HubStatus } from '../../../src/hub/start-hub.js';
import type { SyncStatus } from '../../../src/sync/sync-options.js';
import { HUB_LOGIN, startConvergenceBroker, type BrokerChoice } from './broker.js';
import { HarnessChild, ProcessGone } from './child-process.js';
import type { DeviceConfig, DeviceWriteResult } from './device-process.js';
import type { HubConfig, HubWriteResult } from './hub-process.js';
import { Ledger, checkConvergence, recordAcked, type WireItem, type WriteRecord } from './oracle.js';
import { TABLE, deviceSites, keyOf, makeSchedule, type Op, type Step } from './workload.js';

export type ConvergenceOptions = {
  readonly seed: number;
  /** A folder for the stores (the caller removes it). */
  readonly dir: string;
  readonly devices: number;
  readonly writes: number;
  readonly pauseMs: number;
  /** Devices sync WorkOrders both ways with their sites as partition keys; else up only. */
  readonly twoWay: boolean;
  /** broker.ts: aedes (default), the test's own Mosquitto with TLS and per-device ACLs, or MQTT_URL (restarted never). */
  readonly broker?: BrokerChoice;
  /** Quiescence must come within this long after the schedule ends. */
  readonly quiesceTimeoutMs: number;
  readonly log?: (line: string) => void;
};

export type ConvergenceFigures = {
  writes: Record<WriteRecord['state'] | 'noop' | 'skipped', number>;
  deviceKills: number;
  hubKills: number;
  brokerRestarts: number;
  brokerRestartsSkipped: number;
  disconnects: number;
  scheduleMs: number;
  quiesceMs: number;
  keys: number;
  /** Keys whose hub version names a device's write, and the hub's own (API) write. */
  deviceWins: number;
  hubWins: number;
  hubItems: number;
  deviceItems: Record<string, number>;
};

export type ConvergenceResult = { readonly violations: string[]; readonly figures: ConvergenceFigures; readonly ledger: Ledger };

const ACK_TIMEOUT_MS = 1000;
/** The hub's down ack timeout (startHub's downAckTimeoutMs), shorter than its 5 s default to keep runs short. */
export const DOWN_ACK_TIMEOUT_MS = 1000;
const POLL_MS = 300;
/** Polls in a row with nothing moving: up only ~1 s, two-way over twice the down ack timeout. */
const quietPolls = (twoWay: boolean) => (twoWay ? Math.ceil((2 * DOWN_ACK_TIMEOUT_MS) / POLL_MS) + 1 : 3);

type Proc = { child: HarnessChild | undefined; starting: Promise<void> | undefined; syncing: boolean };

export async function runConvergence(o: ConvergenceOptions): Promise<ConvergenceResult> {
  const log = o.log ?? (() => undefined);
  const choice = o.broker ?? { kind: 'aedes' };
  const external = choice.kind === 'external' ? choice.url : undefined;
  const tag = `cv${o.seed.toString(36)}${process.pid.toString(36)}`;
  const deviceIds = Array.from({ length: o.devices }, (_, i) => `${tag}-d${i + 1}`);
  const hubId = `${tag}-hub`;
  // On a shared broker other tests sync WorkOrders tables too: this run's topics and table are its own.
  // With TLS, a two-level namespace too: the ACL is built from it, as a shared deployment's would be.
  const table = external ? `${TABLE}.${tag}` : TABLE;
  const namespace = choice.kind === 'aedes' ? 'edgetable' : `edgetable-test/${tag}`;
  const sitesOf = (i: number) => deviceSites(i);
  const tablesOf = (i: number): unknown[] => (o.twoWay ? [{ name: table, direction: 'both', partitionKeys: sitesOf(i) }] : [table]);
  const figures: ConvergenceFigures = {
    writes: { pending: 0, acked: 0, maybe: 0, failed: 0, noop: 0, skipped: 0 },
    deviceKills: 0,
    hubKills: 0,
    brokerRestarts: 0,
    brokerRestartsSkipped: 0,
    disconnects: 0,
    scheduleMs: 0,
    quiesceMs: 0,
    keys: 0,
    deviceWins: 0,
    hubWins: 0,
    hubItems: 0,
    deviceItems: {},
  };
  const ledger = new Ledger();
  const incarnations = new Map<string, string>();
  const hubPath = join(o.dir, 'hub');
  const devicePaths = deviceIds.map((id) => join(o.dir, id));
  const pkiDir = join(o.dir, 'pki');
  for (const p of [hubPath, ...devicePaths, pkiDir]) mkdirSync(p, { recursive: true });
  const broker = await startConvergenceBroker(choice, { namespace, pkiDir });
  // Each process's TLS identity, made now (openssl) rather than while the schedule runs: the hub's
  // login is the ACL's hub user, a device's its device id, the `%u` of its ACL patterns.
  const hubTls = broker.tlsFor(HUB_LOGIN);
  const deviceTls = deviceIds.map((id) => broker.tlsFor(id));
  // On the TLS broker the hub checks too (docs/sync.md, "Securing a shared broker"): only this
  // run's devices, each only its own sites.
  const access: HubConfig['access'] = hubTls ? { allowDevices: deviceIds, subscriptions: Object.fromEntries(deviceIds.map((id, i) => [id, { [table]: sitesOf(i) }])) } : undefined;

  const hub: Proc = { child: undefined, starting: undefined, syncing: true };
  const devices: Proc[] = deviceIds.map(() => ({ child: undefined, starting: undefined, syncing: true }));
  const startHubProcess = () => {
    const config: HubConfig = { path: hubPath, url: broker.url, namespace, table, hubId, downAckTimeoutMs: DOWN_ACK_TIMEOUT_MS, ...(hubTls ? { tls: hubTls } : {}), ...(access ? { access } : {}) };
    const child = new HarnessChild('hub', 'hub-process.ts', config);
    hub.child = child;
    hub.starting = child.event('ready', 60_000).then(() => {
      hub.starting = undefined;
    });
    return hub.starting;
  };
  const startDeviceProcess = (i: number) => {
    const tls = deviceTls[i];
    const config: DeviceConfig = { path: devicePaths[i]!, url: broker.url, deviceId: deviceIds[i]!, namespace, table, tables: tablesOf(i), ackTimeoutMs: ACK_TIMEOUT_MS, ...(tls ? { tls } : {}) };
    const child = new HarnessChild(deviceIds[i]!, 'device-process.ts', config);
    const d = devices[i]!;
    d.child = child;
    d.syncing = true;
    d.starting = child.event('ready', 60_000).then((data) => {
      incarnations.set(deviceIds[i]!, (data as { incarnation: string }).incarnation);
      d.starting = undefined;
    });
    return d.starting;
  };
  const up = (p: Proc) => p.child !== undefined && p.child.alive && p.starting === undefined;

  const settling: Promise<void>[] = [];
  const write = (actor: 'hub' | number, op: Op) => {
    const p = actor === 'hub' ? hub : devices[actor]!;
    const { child, starting } = p;
    if (!child?.alive) {
      figures.writes.skipped += 1;
      return;
    }
    const w = ledger.issue(actor === 'hub' ? 'hub' : deviceIds[actor]!, op);
    // A process still starting gets the write once it is ready; if it dies first, it never got it.
    const send = () => child.call<DeviceWriteResult & HubWriteResult>('write', { op });
    const answer = starting ? starting.then(send, () => Promise.reject(new NeverSent())) : send();
    settling.push(
      answer.then(
        (r) => recordAcked(w, r),
        (err: Error) => {
          w.state = err instanceof ProcessGone ? 'maybe' : 'failed';
          w.error = err.message;
        },
      ),
    );
  };

  let brokerRestart: Promise<void> | undefined;
  const run = async (step: Step) => {
    switch (step.t) {
      case 'write':
        return write(step.actor, step.op);
      case 'pause':
        return sleep(step.ms);
      case 'disconnect': {
        const d = devices[step.device]!;
        await d.starting?.catch(() => undefined);
        if (!up(d) || !d.syncing) return;
        d.syncing = false;
        figures.disconnects += 1;
        return d.child!.call('stop-sync').catch(ignoreGone);
      }
      case 'reconnect': {
        const d = devices[step.device]!;
        if (!up(d) || d.syncing) return;
        d.syncing = true;
        return d.child!.call('start-sync').catch(ignoreGone);
      }
      case 'kill-device':
        // Even while it is still starting: a kill during open or startSync is a fault too.
        figures.deviceKills += 1;
        return devices[step.device]!.child!.kill('SIGKILL');
      case 'restart-device':
        void startDeviceProcess(step.device).catch(() => undefined);
        return;
      case 'kill-hub':
        figures.hubKills += 1;
        return hub.child!.kill('SIGKILL');
      case 'restart-hub':
        void startHubProcess().catch(() => undefined);
        return;
      case 'restart-broker':
        if (!broker.restartable) {
          figures.brokerRestartsSkipped += 1;
          return;
        }
        if (brokerRestart) return;
        figures.brokerRestarts += 1;
        brokerRestart = broker.restart(step.downMs).finally(() => (brokerRestart = undefined));
        return;
    }
  };

  try {
    await Promise.all([startHubProcess(), ...deviceIds.map((_, i) => startDeviceProcess(i))]);
    const steps = makeSchedule(o.seed, { devices: o.devices, writes: o.writes, hubWritesShared: o.twoWay, pauseMs: o.pauseMs });
    const t0 = Date.now();
    for (const step of steps) {
      const s0 = Date.now();
      await run(step);
      if (Date.now() - s0 > 250 && step.t !== 'pause') log(`step ${step.t} took ${Date.now() - s0} ms`);
    }
    await brokerRestart;
    await Promise.all([hub.starting, ...devices.map((d) => d.starting)]); // the last restarts
    await Promise.all(settling);
    figures.scheduleMs = Date.now() - t0;
    const reasons = new Map<string, number>();
    for (const w of ledger.writes) if (w.error) reasons.set(`${w.state}: ${w.error.slice(0, 120)}`, (reasons.get(`${w.state}: ${w.error.slice(0, 120)}`) ?? 0) + 1);
    log(`schedule done in ${figures.scheduleMs} ms: ${JSON.stringify(ledger.counts())}; unanswered or refused: ${JSON.stringify([...reasons])}`);

    const q0 = Date.now();
    await quiesce(o, hub, devices, deviceIds, log);
    figures.quiesceMs = Date.now() - q0;
    await Promise.all([hub, ...devices].map((p) => p.child!.call('close').catch(ignoreGone)));
    await Promise.all([hub, ...devices].map((p) => p.child!.exited));
  } finally {
    await Promise.all([hub, ...devices].map((p) => p.child?.kill('SIGKILL')));
    await broker.stop();
    const topics = new Topics(namespace);
    if (external) await clearRetained(external, deviceIds.flatMap((id) => [topics.schema(id, table), topics.downSubscribe(id)]));
  }

  const keys = new Set(ledger.writes.map((w) => keyOf(w.op.site, w.op.job)));
  const { items: hubItems, versions: hubVersions } = readCopy(hubPath, table, keys);
  const copies = deviceIds.map((_, i) => readCopy(devicePaths[i]!, table, keys));
  const deviceItems = new Map(deviceIds.map((id, i) => [id, copies[i]!.items] as const));
  const deviceVersions = new Map(deviceIds.map((id, i) => [id, copies[i]!.versions] as const));
  const final = {
    twoWay: o.twoWay,
    devices: new Map(deviceIds.map((id, i) => [id, { incarnation: incarnations.get(id)!, sites: sitesOf(i) }] as const)),
    hubItems,
    hubVersions,
    deviceItems,
    deviceVersions,
  };
  Object.assign(figures.writes, ledger.counts());
  figures.keys = keys.size;
  for (const v of hubVersions.values()) {
    if (deviceIds.includes(v.device)) figures.deviceWins += 1;
    else figures.hubWins += 1;
  }
  figures.hubItems = hubItems.size;
  for (const [id, items] of deviceItems) figures.deviceItems[id] = items.size;
  return { violations: checkConvergence(ledger, final), figures, ledger };
}

async function quiesce(o: ConvergenceOptions, hub: Proc, devices: Proc[], ids: string[], log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + o.quiesceTimeoutMs;
  let quiet = 0;
  let last = '';
  for (;;) {
    if (Date.now() > deadline) throw new Error(`no quiescence within ${o.quiesceTimeoutMs} ms; last state ${last}`);
    const flushed = await Promise.all(devices.map((d) => d.child!.call<boolean>('flushed', { timeoutMs: 2000 })));
    const hubStatus = await hub.child!.call<HubStatus>('status');
    const statuses = await Promise.all(devices.map((d) => d.child!.call<SyncStatus>('status')));
    const served = new Map((hubStatus.down?.subscriptions ?? []).map((sub) => [sub.device, sub.state]));
    const caughtUp = statuses.map((s, i) => s.online && (!o.twoWay || ((s.down ?? []).length > 0 && s.down!.every((t) => t.state === 'delta') && served.get(ids[i]!) === 'delta')));
    const { subscriptions: _subs, ...downCounters } = hubStatus.down ?? { subscriptions: [] };
    const moving = JSON.stringify({
      hub: [hubStatus.recordsApplied, hubStatus.recordsSuperseded, hubStatus.duplicateRecords, hubStatus.batchesApplied, hubStatus.clock, downCounters],
      devices: statuses.map(({ shards, lastError: _e, online: _o, ...counters }) => [counters, shards.map((s) => [s.lastSeq, s.ackedSeq])]),
    });
    const ready = hubStatus.online && flushed.every(Boolean) && caughtUp.every(Boolean);
    quiet = ready && moving === last ? quiet + 1 : 0;
    last = moving;
    if (quiet >= quietPolls(o.twoWay)) return;
    if (!ready) {
      const down = statuses.map((s, i) => `${ids[i]}: ${(s.down ?? []).map((t) => t.state).join(',') || '-'}/hub ${served.get(ids[i]!) ?? '-'}`);
      log(`quiescing: hub online ${hubStatus.online}, flushed ${ids.filter((_, i) => flushed[i]).length}/${ids.length}, caught up ${caughtUp.filter(Boolean).length}/${ids.length} (${down.join('; ')})`);
    }
    await sleep(POLL_MS);
  }
}

/** A copy's items, and its version record of each key (hub: every merged table; device: two-way tables). */
export function readCopy(path: string, name: string, keys: Set<string>): { items: Map<string, WireItem>; versions: Map<string, Version> } {
  const db = open({ path });
  try {
    const table = db.context.catalog.find(name);
    if (!table) return { items: new Map(), versions: new Map() };
    const syncDb = db.store.database(SYNC_DB);
    const versions = new Map<string, Version>();
    db.store.read((txn) => {
      for (const k of keys) {
        const [site, job] = k.split('/') as [string, string];
        const v = readVersion(txn, syncDb, name, table.keyOf(readItemParam({ site: { S: site }, job: { S: job } })).bytes);
        if (v) versions.set(k, v);
      }
    });
    return { items: scan(db, name), versions };
  } finally {
    db.close();
  }
}

function scan(db: Edgetable, table: string): Map<string, WireItem> {
  const out = new Map<string, WireItem>();
  if (!db.context.catalog.find(table)) return out;
  let start: Record<string, unknown> | undefined;
  do {
    const page = db.execute('Scan', { TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) }) as { Items: WireItem[]; LastEvaluatedKey?: Record<string, unknown> };
    for (const item of page.Items) out.set(keyOf(item['site']!['S'] as string, item['job']!['S'] as string), item);
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** On a shared broker, this run's retained schemas and subscriptions are cleared so later hubs do not see its devices. */
export async function clearRetained(url: string, topics: string[]): Promise<void> {
  const client = await connectAsync(url, { clientId: `edgetable-convergence-clear-${process.pid}`, protocolVersion: 4, connectTimeout: 10_000, reconnectPeriod: 0 });
  try {
    for (const t of topics) await client.publishAsync(t, '', { qos: 1, retain: true });
  } finally {
    await client.endAsync();
  }
}

class NeverSent extends Error {
  constructor() {
    super('never sent: the process died while starting');
  }
}
const ignoreGone = (err: unknown) => {
  if (!(err instanceof ProcessGone)) throw err;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
