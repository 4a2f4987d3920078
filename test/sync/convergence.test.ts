/**
 * Issue 17's convergence property test: several devices and a hub, each in its own process on its
 * own folder, a broker in a process of its own, and a seeded random schedule of puts, updates
 * (UpdateExpression) and deletes on shared partition keys, hub-side writes through the hub's
 * DynamoDB API (AWS SDK), disconnects, broker restarts and SIGKILLs of devices and of the hub
 * (test/sync/harness/). After quiescence every copy is checked against the ledger of acknowledged
 * writes (harness/oracle.ts explains the rules).
 *
 * CONVERGENCE_SEED picks the schedule (the seed is printed on failure; CONVERGENCE_SEED=random
 * draws one), CONVERGENCE_WRITES and CONVERGENCE_DEVICES size it, CONVERGENCE_KEEP=1 keeps the
 * stores of a run for inspection. With MQTT_URL set, each scenario also runs against that broker,
 * without broker restarts (the harness restarts only a broker it started).
 *
 * Two-way also runs through a Mosquitto the test starts itself (harness/broker.ts 'mosquitto-tls'):
 * TLS only, a client certificate made with openssl for every device and for the hub (CN = the
 * login: the device id, `hub`), the per-device ACL of docs/sync.md ("Securing a shared broker")
 * built from the run's topic namespace, and the hub's allow-list and per-device subscription
 * permissions on top; the schedule's broker restarts stop that Mosquitto (by its pid) and start
 * it again on the same port. A device that published or subscribed outside its ACL would lose
 * those messages and the copies would not converge. Skipped, saying why, without mosquitto or
 * openssl; it runs the first two-way seed (or CONVERGENCE_SEED).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { findMosquitto } from '../reliability/harness/own-mosquitto.js';
import { hasOpenssl } from '../reliability/harness/test-pki.js';
import type { BrokerChoice } from './harness/broker.js';
import { runConvergence, type ConvergenceOptions } from './harness/cluster.js';
import { Ledger, checkConvergence, type FinalState, type WireItem } from './harness/oracle.js';
import { TABLE, tableDefinition, type Op } from './harness/workload.js';

// Fixed default seeds keep CI reproducible; explore with CONVERGENCE_SEED=random. Two-way also
// replays 287876, whose schedule has a device's delete win at the hub where the item was already
// gone: that moved only the key's version, and before version-only log records
// (docs/change-record.md) the other device kept its older version of the key.
const SEED_SETTING = process.env.CONVERGENCE_SEED;
const chosen = SEED_SETTING === undefined ? undefined : SEED_SETTING === 'random' ? Date.now() % 1_000_000 : Number(SEED_SETTING);
const UP_SEEDS = chosen === undefined ? [583005] : [chosen];
const TWO_WAY_SEEDS = chosen === undefined ? [583005, 287876] : [chosen];
const WRITES = Number(process.env.CONVERGENCE_WRITES ?? 400);
const DEVICES = Number(process.env.CONVERGENCE_DEVICES ?? 3);
const brokers: { name: string; broker: BrokerChoice }[] = [{ name: 'aedes in a child process, restarted', broker: { kind: 'aedes' } }];
if (process.env.MQTT_URL) brokers.push({ name: `MQTT_URL ${process.env.MQTT_URL}, no restarts`, broker: { kind: 'external', url: process.env.MQTT_URL } });
const TLS_SEEDS = TWO_WAY_SEEDS.slice(0, 1);
const tlsSkipReason = !findMosquitto() ? 'mosquitto is not installed (Debian package mosquitto)' : !hasOpenssl() ? 'openssl is not installed' : undefined;
if (tlsSkipReason) console.log(`convergence.test.ts: the TLS Mosquitto scenario is skipped: ${tlsSkipReason}`);

const dirs: string[] = [];
afterEach(() => {
  // CONVERGENCE_KEEP=1 leaves the stores for inspection (their folder is printed).
  for (const d of dirs.splice(0)) {
    if (process.env.CONVERGENCE_KEEP) console.log(`convergence stores kept in ${d}`);
    else rmSync(d, { recursive: true, force: true });
  }
});

/** Whether startSync takes the two-way form of `tables` (issue 17's down direction). */
async function twoWaySupported(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'etb-cv-probe-'));
  const db = open({ path: dir });
  try {
    db.createTable(tableDefinition());
    // A port nothing listens on: the agent starts (and keeps reconnecting) without a broker.
    const sync = await db.startSync({ url: 'mqtt://127.0.0.1:9', deviceId: 'probe', tables: [{ name: TABLE, direction: 'both', partitionKeys: ['p'] }] as never });
    await sync.stop();
    return true;
  } catch {
    return false;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
const TWO_WAY = await twoWaySupported();

async function converge(seed: number, o: Pick<ConvergenceOptions, 'twoWay' | 'broker'>) {
  const dir = mkdtempSync(join(tmpdir(), 'etb-convergence-'));
  dirs.push(dir);
  const lines: string[] = [];
  const result = await runConvergence({ seed, dir, devices: DEVICES, writes: WRITES, pauseMs: 25, quiesceTimeoutMs: 45_000, log: (l) => lines.push(l), ...o }).catch((err: Error) => {
    throw new Error(`CONVERGENCE_SEED=${seed}: ${err.message}\n${lines.join('\n')}`);
  });
  const { figures, violations } = result;
  console.log(`convergence (${o.twoWay ? 'two-way' : 'up only'}, ${o.broker?.kind ?? 'aedes'}): seed ${seed}, ${JSON.stringify(figures)}${process.env.CONVERGENCE_VERBOSE ? `\n${lines.join('\n')}` : ''}`);
  expect(violations, `CONVERGENCE_SEED=${seed} replays this schedule`).toEqual([]);
  // The run exercised what it claims to.
  expect(figures.writes.acked).toBeGreaterThan(WRITES / 2);
  expect(figures.deviceKills).toBeGreaterThan(0);
  expect(figures.hubKills).toBeGreaterThan(0);
  expect(figures.disconnects).toBeGreaterThan(0);
  expect(figures.brokerRestarts + figures.brokerRestartsSkipped).toBeGreaterThan(0);
  return result;
}

describe.each(brokers)('convergence, devices to hub (up only), broker: $name', ({ broker }) => {
  it.each(UP_SEEDS)('seed %i: after SIGKILLs of devices and hub, disconnects and broker restarts, the hub holds the last-writer-wins merge of every acknowledged write, and each device its own', async (seed) => {
    await converge(seed, { twoWay: false, broker });
  }, 120_000);
});

describe.skipIf(!TWO_WAY).each(brokers)('convergence, two-way with partition subscriptions, broker: $name', ({ broker }) => {
  it.each(TWO_WAY_SEEDS)('seed %i: every device equals the hub restricted to its partition keys, holds nothing else, and no acknowledged write is lost', async (seed) => {
    await converge(seed, { twoWay: true, broker });
  }, 120_000);
});

describe.skipIf(!TWO_WAY || tlsSkipReason !== undefined)('convergence, two-way, through our own Mosquitto over TLS: a client certificate per device and hub, the per-device ACL, restarted', () => {
  it.each(TLS_SEEDS)('seed %i: every device equals the hub restricted to its partition keys, holds nothing else, and no acknowledged write is lost', async (seed) => {
    await converge(seed, { twoWay: true, broker: { kind: 'mosquitto-tls' } });
  }, 120_000);
});

describe('the convergence checker fails when it should', () => {
  const devices = new Map([
    ['d1', { incarnation: 'i1', sites: ['site-a'] }],
    ['d2', { incarnation: 'i2', sites: ['site-a', 'site-b'] }],
  ]);
  const op = (wid: string, kind: Op['kind'] = 'put', site = 'site-a', job = 'job-0'): Op => ({ kind, site, job, wid, v: 1 });
  const item = (wid: string, by: string, site = 'site-a', job = 'job-0'): WireItem => ({ site: { S: site }, job: { S: job }, wid: { S: wid }, by: { S: by }, v: { N: '1' } });
  /** d1 then d2 wrote site-a/job-0, both acknowledged; d2's write has the later HLC. */
  function world(): { ledger: Ledger; final: FinalState } {
    const ledger = new Ledger();
    Object.assign(ledger.issue('d1', op('w1')), { state: 'acked', hlc: { ms: 100, counter: 0 }, image: item('w1', 'd1') });
    Object.assign(ledger.issue('d2', op('w2')), { state: 'acked', hlc: { ms: 200, counter: 0 }, image: item('w2', 'd2') });
    const winner = item('w2', 'd2');
    return {
      ledger,
      final: {
        twoWay: true,
        devices,
        hubItems: new Map([['site-a/job-0', winner]]),
        hubVersions: new Map([['site-a/job-0', { hlc: { ms: 200, counter: 0 }, device: 'd2', incarnation: 'i2' }]]),
        deviceItems: new Map([
          ['d1', new Map([['site-a/job-0', winner]])],
          ['d2', new Map([['site-a/job-0', winner]])],
        ]),
      },
    };
  }

  it('passes the honest outcome', () => {
    const { ledger, final } = world();
    expect(checkConvergence(ledger, final)).toEqual([]);
  });

  it('reports an acknowledged write lost to an older one', () => {
    const { ledger, final } = world();
    const older = item('w1', 'd1');
    const lost = { ...final, hubItems: new Map([['site-a/job-0', older]]), hubVersions: new Map([['site-a/job-0', { hlc: { ms: 100, counter: 0 }, device: 'd1', incarnation: 'i1' }]]), deviceItems: new Map([['d1', new Map([['site-a/job-0', older]])], ['d2', new Map([['site-a/job-0', older]])]]) };
    expect(checkConvergence(ledger, lost).join('\n')).toMatch(/acknowledged write w2 .* is lost/);
  });

  it('reports a device that diverged from the hub, and one holding a partition it does not subscribe to', () => {
    const { ledger, final } = world();
    const stray = item('w9', 'd2', 'site-b', 'job-1');
    Object.assign(ledger.issue('d2', op('w9', 'put', 'site-b', 'job-1')), { state: 'acked', hlc: { ms: 300, counter: 0 }, image: stray });
    const hubItems = new Map([...final.hubItems, ['site-b/job-1', stray]]);
    const hubVersions = new Map([...final.hubVersions, ['site-b/job-1', { hlc: { ms: 300, counter: 0 }, device: 'd2', incarnation: 'i2' }]]);
    const deviceItems = new Map([
      ['d1', new Map([['site-a/job-0', item('w1', 'd1')], ['site-b/job-1', stray]])],
      ['d2', new Map([['site-a/job-0', item('w2', 'd2')], ['site-b/job-1', stray]])],
    ]);
    const text = checkConvergence(ledger, { ...final, hubItems, hubVersions, deviceItems }).join('\n');
    expect(text).toMatch(/d1 holds site-a\/job-0 as .*w1.*, hub as .*w2/);
    expect(text).toMatch(/d1 holds site-b\/job-1 outside its subscriptions site-a/);
  });

  it('reports a device whose version of a key names another write than the hub’s', () => {
    const { ledger, final } = world();
    const deviceVersions = new Map([['d1', new Map([['site-a/job-0', { hlc: { ms: 100, counter: 0 }, device: 'd1', incarnation: 'i1' }]])]]);
    expect(checkConvergence(ledger, { ...final, deviceVersions }).join('\n')).toMatch(/d1 keeps version 100.0\/d1 of site-a\/job-0, the hub 200.0\/d2/);
  });

  it('reports an item no write made, and a winner that is no write to the key', () => {
    const { ledger, final } = world();
    const forged = item('w7', 'd2');
    const text = checkConvergence(ledger, { ...final, hubItems: new Map([['site-a/job-0', forged], ['site-a/job-5', item('w8', 'd1', 'site-a', 'job-5')]]) }).join('\n');
    expect(text).toMatch(/hub holds site-a\/job-5 .* which no write made/);
    expect(text).toMatch(/matches no write of d2/);
  });

  it('up only: reports a device whose last acknowledged write is gone, and one holding another device’s write', () => {
    const { ledger, final } = world();
    const upOnly = { ...final, twoWay: false, deviceItems: new Map([['d1', new Map<string, WireItem>()], ['d2', new Map([['site-a/job-0', item('w1', 'd1')]])]]) };
    const text = checkConvergence(ledger, upOnly).join('\n');
    expect(text).toMatch(/d1: site-a\/job-0 is absent; expected w1 \(put, acked\)/);
    expect(text).toMatch(/d2: site-a\/job-0 is .*w1.*; expected w2/);
  });
});
