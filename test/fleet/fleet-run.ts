/**
 * One fleet run: dynalite (the endpoint), a broker (an aedes child, restartable; MQTT_URL when
 * set), a hub process (DynamoDB API on a loopback port, forwarding to dynalite), N devices
 * (fleet-devices.ts); the seeded schedule (fleet-schedule.ts) played in real time: writes recorded
 * in one ledger per table as the convergence oracle wants them, chaos events run alongside; then
 * quiescence (fleet-quiesce.ts), a clean stop, the final copies read from the folders and dynalite
 * (fleet-copies.ts), and the verdict (fleet-checks.ts). Kills only the processes it started and
 * removes its folder (unless `keep`).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HubStatus } from '../../src/hub/start-hub.js';
import type { SyncStatus } from '../../src/sync/sync-options.js';
import { Topics } from '../../src/sync/protocol/topics.js';
import { startDynalite, TEST_CREDENTIALS } from '../hub/forward/dynalite.js';
import { startConvergenceBroker } from '../sync/harness/broker.js';
import { ProcessGone } from '../sync/harness/child-process.js';
import { DOWN_ACK_TIMEOUT_MS, clearRetained } from '../sync/harness/cluster.js';
import type { DeviceWriteResult } from '../sync/harness/device-write.js';
import type { HubConfig, HubWriteResult } from '../sync/harness/hub-process.js';
import { Ledger, recordAcked } from '../sync/harness/oracle.js';
import { keyOf } from '../sync/harness/workload.js';
import { checkFleet, type FleetVerdict } from './fleet-checks.js';
import { readCopies, readDeadLetters, readEndpoint } from './fleet-copies.js';
import type { FleetDeviceConfig } from './fleet-device.js';
import { FleetDevices } from './fleet-devices.js';
import { FleetHub, presenceFields, type SecondHubReport } from './fleet-hub.js';
import type { FleetOptions } from './fleet-options.js';
import { quiesceFleet, type Quiescence } from './fleet-quiesce.js';
import { makeFleetSchedule, type ChaosEvent, type TimedWrite } from './fleet-schedule.js';
import { LATE_TABLE, TABLES, TTL_ATTRIBUTE, TWO_WAY_TABLE, UP_TABLE, definitionOf, fleetSites, syncTables } from './fleet-world.js';
import { Throughput, poisonAttributes } from './fleet-figures.js';

export type FleetReport = {
  readonly verdict: FleetVerdict;
  readonly quiescence: Quiescence;
  readonly writes: { acked: number; maybe: number; failed: number; skipped: number; conditionalRefused: number; ttl: number };
  readonly chaos: Record<string, number>;
  readonly chaosSkipped: Record<string, number>;
  readonly throughput: Throughput;
  readonly catchUpMs: number[];
  readonly secondHub?: SecondHubReport;
  /** The first hub's status fields beyond the counters (the hubs it sees, once hubs report them). */
  readonly hubPresence?: string;
  readonly scheduleMs: number;
  /** Per table: items at the hub and the endpoint, and on all devices together (what the checks compared). */
  readonly items: Record<string, { hub: number; endpoint: number; devices: number }>;
  readonly dir: string;
};

const ACK_TIMEOUT_MS = 1000;
const TTL_MARGIN_MS = 15_000;

export async function runFleet(o: FleetOptions, log: (line: string) => void): Promise<FleetReport> {
  const schedule = makeFleetSchedule(o.seed, { devices: o.devices, minutes: o.minutes, writesPerSecond: o.writesPerSecond, secondHub: o.secondHub, poison: o.poison });
  const external = process.env.MQTT_URL;
  const tag = `f${o.seed.toString(36)}${process.pid.toString(36)}`;
  const namespace = external ? `edgetable-fleet/${tag}` : 'edgetable';
  const ids = Array.from({ length: o.devices }, (_, i) => `${tag}-d${i + 1}`);
  const dir = mkdtempSync(join(tmpdir(), 'etb-fleet-'));
  const paths = ids.map((id) => join(dir, id));
  for (const p of [join(dir, 'pki'), ...paths]) mkdirSync(p, { recursive: true });
  const ledgers = new Map(TABLES.map((t) => [t, new Ledger()] as const));
  const offsets = ids.map(() => 0);
  const writes = { acked: 0, maybe: 0, failed: 0, skipped: 0, conditionalRefused: 0, ttl: 0 };
  const chaos: Record<string, number> = {};
  const chaosSkipped: Record<string, number> = {};
  const count = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);
  const catchUpMs: number[] = [];
  const ttl: { table: string; key: string; writer: string; device: number; expiresMs: number; seq: number }[] = [];
  const poison: { table: string; key: string }[] = [];
  const reflashedAt = new Map<string, Map<string, number>>();
  /** Devices whose writes are skipped: being killed, re-flashed or restarted by a chaos event. */
  const busy = new Set<number>();
  let lateCreated = false;
  let secondHub: SecondHubReport | undefined;

  const dynalite = await startDynalite();
  const broker = await startConvergenceBroker(external ? { kind: 'external', url: external } : { kind: 'aedes' }, { namespace, pkiDir: join(dir, 'pki') });
  const hubConfig: HubConfig = { path: join(dir, 'hub'), url: broker.url, namespace, table: TWO_WAY_TABLE, hubId: 'hub', downAckTimeoutMs: DOWN_ACK_TIMEOUT_MS, forward: { endpoint: dynalite.endpoint, credentials: TEST_CREDENTIALS, pollMs: 100 } };
  const hub = new FleetHub(hubConfig);
  const configs: FleetDeviceConfig[] = ids.map((deviceId, index) => ({ index, path: paths[index]!, url: broker.url, deviceId, namespace, tables: syncTables(index, o.devices), ackTimeoutMs: ACK_TIMEOUT_MS, clockOffsetMs: 0 }));
  const devices = new FleetDevices(configs, o.inProcess);
  const throughput = new Throughput();
  const settling: Promise<void>[] = [];
  const sampler = setInterval(() => void hub.status().then((s) => s && throughput.sample(s), () => undefined), 1000);

  const write = (tw: TimedWrite, attempt = 0): void => {
    const table = tw.table;
    const onHub = tw.actor === 'hub';
    const i = tw.actor === 'hub' ? -1 : tw.actor;
    if (onHub ? !hub.up() || (table === LATE_TABLE && !lateCreated) : !devices.up(i) || busy.has(i)) {
      // The poison record must be written once: tried again until its device takes it.
      if (tw.poison && attempt < 30) setTimeout(() => write(tw, attempt + 1), 2000);
      else writes.skipped += 1;
      return;
    }
    const now = Date.now() + (onHub ? 0 : offsets[i]!);
    const attrs = tw.ttlSeconds !== undefined ? { [TTL_ATTRIBUTE]: { N: String(Math.floor(now / 1000) + tw.ttlSeconds) } } : tw.poison ? poisonAttributes(tw.op, ids[0]!) : undefined;
    const op = { ...tw.op, ...(attrs ? { attrs } : {}) };
    const ledger = ledgers.get(table)!;
    const writer = onHub ? 'hub' : ids[i]!;
    const w = ledger.issue(writer, op);
    const answer = onHub ? hub.call<HubWriteResult>('write', { op, table }) : devices.call<DeviceWriteResult>(i, 'write', { op, table });
    if (tw.ttlSeconds !== undefined) {
      writes.ttl += 1;
      ttl.push({ table, key: keyOf(op.site, op.job), writer, device: i, expiresMs: (Math.floor(now / 1000) + tw.ttlSeconds) * 1000, seq: w.seq });
      // The sweeper's delete, when it comes: a write of its own, without an answer, by the same writer.
      Object.assign(ledger.issue(writer, { kind: 'delete', site: op.site, job: op.job, wid: `${op.wid}-expired`, v: 0 }), { state: 'maybe' });
    }
    settling.push(
      answer.then(
        (r) => {
          recordAcked(w, r);
          writes.acked += 1;
          if (tw.poison) poison.push({ table, key: keyOf(op.site, op.job) });
        },
        (err: Error) => {
          w.state = err instanceof ProcessGone ? 'maybe' : 'failed';
          w.error = err.message;
          if (w.state === 'maybe') writes.maybe += 1;
          else if (err.message.includes('ConditionalCheckFailed')) writes.conditionalRefused += 1;
          else {
            writes.failed += 1;
            log(`write ${op.wid} by ${writer} to ${table} failed: ${err.message.slice(0, 200)}`);
          }
        },
      ),
    );
  };

  /**
   * After a device syncs again: how long until the hub acknowledged what the device held when it
   * reconnected (its backlog, not the writes that keep coming) and its received tables follow the hub.
   */
  const catchUp = async (i: number) => {
    const t0 = Date.now();
    let backlog: Map<string, number> | undefined;
    while (Date.now() - t0 < 240_000) {
      try {
        const s = await devices.call<SyncStatus | null>(i, 'status');
        if (s) {
          backlog ??= new Map(s.shards.map((x) => [`${x.table}/${x.shard}`, x.lastSeq] as const));
          const sent = s.shards.every((x) => x.ackedSeq >= (backlog!.get(`${x.table}/${x.shard}`) ?? 0));
          const received = (s.down ?? []).filter((d) => d.table === TWO_WAY_TABLE || (lateCreated && d.table === LATE_TABLE)).every((d) => d.state === 'delta');
          if (sent && received) {
            catchUpMs.push(Date.now() - t0);
            return;
          }
        }
      } catch {
        return; // killed meanwhile: no figure
      }
      await sleep(100);
    }
  };

  const runChaos = async (e: ChaosEvent): Promise<void> => {
    switch (e.kind) {
      case 'offline': {
        if (!devices.up(e.device) || busy.has(e.device)) return void count(chaosSkipped, e.kind);
        await devices.call(e.device, 'stop-sync');
        count(chaos, e.kind);
        await sleep(e.forMs);
        await devices.call(e.device, 'start-sync');
        return catchUp(e.device);
      }
      case 'kill-device':
      case 'reflash': {
        if (!devices.up(e.device) || busy.has(e.device)) return void count(chaosSkipped, e.kind);
        busy.add(e.device);
        try {
          if (e.kind === 'reflash') {
            // Only a device whose writes the hub acknowledged is re-flashed: what it never sent is gone with its folder.
            let flushed = false;
            for (let n = 0; n < 6 && !flushed; n++) flushed = await devices.call<boolean>(e.device, 'flushed', { timeoutMs: 5000 });
            if (!flushed) return void count(chaosSkipped, e.kind);
            await Promise.all(settling);
          }
          await devices.kill(e.device);
          count(chaos, e.kind);
          if (e.kind === 'reflash') {
            rmSync(paths[e.device]!, { recursive: true, force: true });
            mkdirSync(paths[e.device]!, { recursive: true });
            reflashedAt.set(ids[e.device]!, new Map([...ledgers].map(([t, l]) => [t, l.writes.length] as const)));
          }
          await sleep(e.forMs);
          await devices.restart(e.device, offsets[e.device]!);
        } finally {
          busy.delete(e.device);
        }
        if (e.kind === 'reflash') await catchUp(e.device);
        return;
      }
      case 'kill-hub':
        if (!hub.up()) return void count(chaosSkipped, e.kind);
        count(chaos, e.kind);
        await hub.kill();
        await sleep(e.forMs);
        return hub.start();
      case 'restart-broker':
        if (!broker.restartable || brokerRestarting) return void count(chaosSkipped, e.kind);
        count(chaos, e.kind);
        brokerRestarting = true;
        return broker.restart(e.downMs).finally(() => (brokerRestarting = false));
      case 'clock-step':
        offsets[e.device] = offsets[e.device]! + e.stepMs;
        count(chaos, e.kind);
        if (devices.up(e.device)) await devices.call(e.device, 'step-clock', { stepMs: e.stepMs }).catch(() => undefined);
        return;
      case 'create-late':
        for (;;) {
          if (hub.up()) {
            try {
              await hub.call('create-table', { definition: definitionOf(LATE_TABLE) });
              lateCreated = true;
              count(chaos, e.kind);
              return;
            } catch (err) {
              log(`create Late: ${(err as Error).message}`);
            }
          }
          await sleep(500);
        }
      case 'second-hub':
        count(chaos, e.kind);
        secondHub = await hub.runSecond(join(dir, 'hub-2'), e.forMs, log);
        return;
    }
  };
  let brokerRestarting = false;

  try {
    await Promise.all([hub.start(), devices.start()]);
    log(`started: hub, ${o.devices} devices (${o.inProcess ? 'in one process' : 'a process each'}), broker ${broker.url}, endpoint ${dynalite.endpoint}`);
    const t0 = Date.now();
    throughput.start(t0);
    const events = [...schedule.writes.map((w) => ({ at: w.at, w })), ...schedule.chaos.map((c) => ({ at: c.at, c }))].sort((a, b) => a.at - b.at);
    const running: Promise<void>[] = [];
    for (const ev of events) {
      const wait = t0 + ev.at - Date.now();
      if (wait > 0) await sleep(wait);
      if ('w' in ev) write(ev.w);
      else {
        log(`chaos at ${Math.round(ev.at / 1000)} s: ${JSON.stringify(ev.c)}`);
        running.push(runChaos(ev.c).catch((err: Error) => log(`chaos ${ev.c.kind} failed: ${err.message}`)));
      }
    }
    await Promise.all(running);
    await sleep(2000); // a poison write tried again lands
    await Promise.all(settling);
    const scheduleMs = Date.now() - t0;
    log(`schedule done in ${scheduleMs} ms; writes ${JSON.stringify(writes)}`);

    const quiescence = await quiesceFleet(() => hub.child(), devices, ids, [TWO_WAY_TABLE, LATE_TABLE], o.quiesceSeconds * 1000, o.verbose ? log : () => undefined);
    const last = await hub.status();
    if (last) throughput.sample(last);
    throughput.stop(Date.now());
    clearInterval(sampler);
    log(quiescence.reached ? `quiescent after ${quiescence.ms} ms` : `no quiescence within ${o.quiesceSeconds} s: ${quiescence.missing}`);
    await Promise.all([hub.close(), devices.close()]);

    const keys = new Map(TABLES.map((t) => [t, new Set(ledgers.get(t)!.writes.map((w) => keyOf(w.op.site, w.op.job)))] as const));
    const hubCopies = readCopies(hubConfig.path, TABLES, keys);
    const deviceCopies = paths.map((p) => readCopies(p, TABLES, keys));
    const endpoint = await readEndpoint(dynalite.endpoint, TEST_CREDENTIALS, TABLES);
    const endMs = Date.now();
    const expired = ttl.filter((t) => t.expiresMs + TTL_MARGIN_MS < endMs + offsets[t.device]! && t.seq >= (reflashedAt.get(t.writer)?.get(t.table) ?? -1));
    const verdict = checkFleet({
      tables: TABLES.map((table) => ({
        table,
        twoWay: table !== UP_TABLE,
        ledger: ledgers.get(table)!,
        hub: hubCopies.get(table)!,
        devices: new Map(ids.map((id, i) => [id, deviceCopies[i]!.get(table)!] as const)),
        endpoint: endpoint.get(table)!,
      })),
      devices: new Map(ids.map((id, i) => [id, { incarnation: devices.incarnations.get(i)!, sites: fleetSites(i, o.devices) }] as const)),
      reflashedAt,
      expired,
      poison,
      deadLetters: readDeadLetters(hubConfig.path),
    });
    const hubPresence = last ? presenceFields(last) : undefined;
    const items = Object.fromEntries(TABLES.map((t) => [t, { hub: hubCopies.get(t)!.items.size, endpoint: endpoint.get(t)!.size, devices: deviceCopies.reduce((n, c) => n + c.get(t)!.items.size, 0) }] as const));
    return { verdict, quiescence, writes, chaos, chaosSkipped, throughput, catchUpMs, ...(secondHub ? { secondHub } : {}), ...(hubPresence ? { hubPresence } : {}), scheduleMs, items, dir };
  } finally {
    clearInterval(sampler);
    await Promise.all([hub.killAll(), devices.killAll()]);
    await broker.stop();
    await dynalite.stop();
    if (external) {
      const topics = new Topics(namespace);
      await clearRetained(external, ids.flatMap((id) => [...TABLES.map((t) => topics.schema(id, t)), topics.downSubscribe(id)])).catch(() => undefined);
    }
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

export type { HubStatus };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
