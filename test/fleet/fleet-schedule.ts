/**
 * The fleet test's schedule: a pure function of the seed and the run's size, so `--seed S` replays
 * the same writes and the same chaos at the same offsets (the interleaving with sync traffic is
 * the machine's). Times are ms from the run's start; writes end at 90% of the run, chaos starts
 * between 5% and 80% and every fault is undone by 90%, so the run ends with everything running.
 *
 * Chaos kinds, each at least once per run and more in longer or larger runs:
 *   offline       a device stops syncing (its writes go on) for 5-25% of the run: minutes in a long run
 *   kill-device   SIGKILL of a device (in-process: an abrupt close), started again after a while
 *   kill-hub      SIGKILL of the hub, started again on its folder
 *   restart-broker
 *   reflash       a device's folder wiped once its writes are acknowledged; same device id, new store
 *   clock-step    a device's engine clock stepped back, and another's forward (the engine's `now`)
 *   create-late   the hub creates table Late through its API while devices are subscribed to it
 *   second-hub    a second hub on the namespace (its own folder) for 10% of the run (--second-hub)
 */
import type { Rng } from '../reliability/harness/rng.js';
import { createRng } from '../reliability/harness/rng.js';
import { JOBS_PER_SITE, type Op } from '../sync/harness/workload.js';
import { HUB_SITE, LATE_TABLE, TWO_WAY_TABLE, UP_TABLE, allSites, fleetSites, type FleetTable } from './fleet-world.js';

export type ScheduleSize = {
  readonly devices: number;
  readonly minutes: number;
  /** Writes per second, all writers together. */
  readonly writesPerSecond: number;
  readonly secondHub: boolean;
  /** One device write the endpoint refuses (an item that passes 400 KB with the forwarder's version attribute). */
  readonly poison: boolean;
};

/** One write; `ttlSeconds` and `poison` are turned into attributes when it is issued (they depend on the wall clock). */
export type TimedWrite = { readonly at: number; readonly actor: 'hub' | number; readonly table: FleetTable; readonly op: Op; readonly ttlSeconds?: number; readonly poison?: boolean };

export type ChaosEvent =
  | { readonly at: number; readonly kind: 'offline' | 'kill-device' | 'reflash'; readonly device: number; readonly forMs: number }
  | { readonly at: number; readonly kind: 'kill-hub' | 'second-hub'; readonly forMs: number }
  | { readonly at: number; readonly kind: 'restart-broker'; readonly downMs: number }
  | { readonly at: number; readonly kind: 'clock-step'; readonly device: number; readonly stepMs: number }
  | { readonly at: number; readonly kind: 'create-late' };

export type FleetSchedule = { readonly durationMs: number; readonly writes: readonly TimedWrite[]; readonly chaos: readonly ChaosEvent[]; readonly lateAt: number };

const DEVICE_FAULTS = ['offline', 'kill-device', 'reflash'] as const;

export function makeFleetSchedule(seed: number, o: ScheduleSize): FleetSchedule {
  const rng = createRng(seed);
  const D = Math.round(o.minutes * 60_000);
  const between = (lo: number, hi: number) => Math.round(lo + rng.next() * (hi - lo));
  const chaos: ChaosEvent[] = [];
  const scale = Math.max(1, Math.round(o.minutes / 2));
  const deviceScale = Math.max(1, Math.round((scale * o.devices) / 8));
  /** Per device, when its current fault ends: faults of one device never overlap. */
  const busyUntil = new Array<number>(o.devices).fill(0);
  const deviceFault = (kind: (typeof DEVICE_FAULTS)[number], forMs: () => number) => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const device = rng.int(o.devices);
      const at = between(0.05 * D, 0.8 * D);
      const ms = Math.min(forMs(), 0.9 * D - at);
      if (busyUntil[device]! > at - 1000) continue;
      busyUntil[device] = at + ms + 1000;
      chaos.push({ at, kind, device, forMs: ms });
      return;
    }
  };
  for (let i = 0; i < deviceScale; i++) deviceFault('offline', () => between(0.05 * D, 0.25 * D));
  for (let i = 0; i < deviceScale; i++) deviceFault('kill-device', () => between(1000, 5000 + 0.02 * D));
  for (let i = 0; i < Math.max(1, Math.round(deviceScale / 2)); i++) deviceFault('reflash', () => between(1000, 3000));
  let hubFree = 0;
  for (let i = 0; i < scale; i++) {
    const at = Math.max(hubFree, between(0.05 * D, 0.8 * D));
    const forMs = between(1000, 3000);
    hubFree = at + forMs + 2000;
    chaos.push({ at, kind: 'kill-hub', forMs });
  }
  for (let i = 0; i < 2 * scale; i++) chaos.push({ at: between(0.05 * D, 0.8 * D), kind: 'restart-broker', downMs: between(200, 2000) });
  for (let i = 0; i < scale; i++) {
    const magnitude = between(60_000, 600_000);
    chaos.push({ at: between(0.05 * D, 0.8 * D), kind: 'clock-step', device: rng.int(o.devices), stepMs: -magnitude });
    chaos.push({ at: between(0.05 * D, 0.8 * D), kind: 'clock-step', device: rng.int(o.devices), stepMs: magnitude });
  }
  const lateAt = between(0.2 * D, 0.4 * D);
  chaos.push({ at: lateAt, kind: 'create-late' });
  if (o.secondHub) chaos.push({ at: between(0.4 * D, 0.6 * D), kind: 'second-hub', forMs: Math.max(10_000, Math.round(0.1 * D)) });
  chaos.sort((a, b) => a.at - b.at);

  const count = Math.round((o.writesPerSecond * D) / 1000);
  const times = Array.from({ length: count }, () => Math.round(rng.next() * 0.9 * D)).sort((a, b) => a - b);
  const writes = times.map((at, w) => drawWrite(rng, at, w, o.devices, at > lateAt + 1000));
  if (o.poison) {
    const at = Math.round(0.3 * D);
    const index = writes.findIndex((w) => w.at >= at);
    const site = fleetSites(0, o.devices)[0]!;
    const poison: TimedWrite = { at, actor: 0, table: UP_TABLE, op: { kind: 'put', site, job: 'poison', wid: 'poison', v: 0 }, poison: true };
    writes.splice(index < 0 ? writes.length : index, 0, poison);
  }
  return { durationMs: D, writes, chaos, lateAt };
}

function drawWrite(rng: Rng, at: number, w: number, devices: number, lateExists: boolean): TimedWrite {
  const wid = `w${w}`;
  const v = rng.int(1000);
  const roll = rng.next();
  const kind: Op['kind'] = roll < 0.45 ? 'put' : roll < 0.75 ? 'update' : 'delete';
  const job = `job-${rng.int(JOBS_PER_SITE)}`;
  if (rng.chance(0.15)) {
    const table = lateExists && rng.chance(0.35) ? LATE_TABLE : TWO_WAY_TABLE;
    const site = rng.pick(table === TWO_WAY_TABLE ? [...allSites(devices), HUB_SITE] : allSites(devices));
    return { at, actor: 'hub', table, op: { kind, site, job, wid, v } };
  }
  const actor = rng.int(devices);
  const site = rng.pick(fleetSites(actor, devices));
  const pick = rng.next();
  if (pick < 0.1) return { at, actor, table: TWO_WAY_TABLE, op: { kind: 'put', site, job, wid, v, cond: true } };
  if (pick < 0.6) return { at, actor, table: TWO_WAY_TABLE, op: { kind, site, job, wid, v } };
  // TTL writes take keys of their own (one write each): the item is there until it expires, then gone everywhere.
  if (pick < 0.68) return { at, actor, table: UP_TABLE, op: { kind: 'put', site, job: `ttl-${wid}`, wid, v }, ttlSeconds: 3 + rng.int(20) };
  return { at, actor, table: UP_TABLE, op: { kind, site, job, wid, v } };
}
