/**
 * The fleet runner's pure parts (the run itself is `npm run fleet`, in CI by .ci/run): its
 * arguments, its schedule as a function of the seed, and checks that fail when a copy diverges,
 * an acknowledged write is lost, or the dead letters hold other than what was refused.
 */
import { describe, expect, it } from 'vitest';
import { Ledger, type WireItem } from '../sync/harness/oracle.js';
import { checkFleet, keysNamed, type FleetFinal, type TableWorld } from './fleet-checks.js';
import type { Copy } from './fleet-copies.js';
import { FleetUsageError, parseFleetArgs } from './fleet-options.js';
import { makeFleetSchedule } from './fleet-schedule.js';
import { fleetSites } from './fleet-world.js';

describe('parseFleetArgs', () => {
  it('reads --devices, --minutes and --seed, separate or with =, and defaults the rest', () => {
    expect(parseFleetArgs(['--devices', '50', '--minutes=30', '--seed', '7'])).toMatchObject({ devices: 50, minutes: 30, seed: 7, writesPerSecond: 40, inProcess: false, secondHub: true, poison: true, quiesceSeconds: 220 });
    expect(parseFleetArgs([])).toMatchObject({ devices: 8, minutes: 2, seed: 1, writesPerSecond: 16 });
    expect(parseFleetArgs(['--in-process', '--no-second-hub', '--no-poison', '--rate', '5'])).toMatchObject({ inProcess: true, secondHub: false, poison: false, writesPerSecond: 5 });
  });

  it.each([
    [['--devices', '1'], '--devices must be an integer from 2 to 500'],
    [['--devices', '2.5'], '--devices must be'],
    [['--minutes', '0'], '--minutes must be a positive number'],
    [['--seed', '-1'], '--seed must be'],
    [['--seed'], '--seed needs a value'],
    [['--devices', ''], '--devices must be'],
    [['--color'], 'unknown argument --color'],
    [['--keep=yes'], 'unknown argument --keep=yes'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseFleetArgs(argv)).toThrow(FleetUsageError);
    expect(() => parseFleetArgs(argv)).toThrow(message);
  });
});

describe('makeFleetSchedule', () => {
  const size = { devices: 8, minutes: 2, writesPerSecond: 20, secondHub: true, poison: true };

  it('is a function of the seed: the same seed gives the same writes and chaos, another seed others', () => {
    expect(makeFleetSchedule(1, size)).toEqual(makeFleetSchedule(1, size));
    expect(makeFleetSchedule(2, size).chaos).not.toEqual(makeFleetSchedule(1, size).chaos);
  });

  it('has every kind of chaos, ends every fault by 90% of the run, and writes only in time', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const s = makeFleetSchedule(seed, size);
      expect(new Set(s.chaos.map((c) => c.kind))).toEqual(new Set(['offline', 'kill-device', 'reflash', 'kill-hub', 'restart-broker', 'clock-step', 'create-late', 'second-hub']));
      for (const c of s.chaos) expect(c.at + ('forMs' in c && c.kind !== 'second-hub' ? c.forMs : 0)).toBeLessThanOrEqual(0.9 * s.durationMs);
      expect(s.writes.every((w, i) => w.at <= 0.9 * s.durationMs && (i === 0 || s.writes[i - 1]!.at <= w.at))).toBe(true);
      expect(s.writes.filter((w) => w.poison)).toHaveLength(1);
      expect(s.writes.filter((w) => w.table === 'Late').every((w) => w.actor === 'hub' && w.at > s.lateAt)).toBe(true);
    }
  });

  it('never overlaps two faults of one device, and keeps each device to its sites', () => {
    const s = makeFleetSchedule(3, { ...size, devices: 3, minutes: 10 });
    const faults = s.chaos.flatMap((c) => (c.kind === 'offline' || c.kind === 'kill-device' || c.kind === 'reflash' ? [c] : []));
    for (const a of faults) for (const b of faults) if (a !== b && a.device === b.device) expect(a.at + a.forMs < b.at || b.at + b.forMs < a.at).toBe(true);
    for (const w of s.writes) if (w.actor !== 'hub') expect(fleetSites(w.actor, 3)).toContain(w.op.site);
  });

  it('drops the second hub and the poison record when asked', () => {
    const s = makeFleetSchedule(1, { ...size, secondHub: false, poison: false });
    expect(s.chaos.some((c) => c.kind === 'second-hub')).toBe(false);
    expect(s.writes.some((w) => w.poison)).toBe(false);
  });
});

describe('checkFleet', () => {
  const item = (wid: string, by: string, job = 'job-0'): WireItem => ({ site: { S: 'site-0' }, job: { S: job }, wid: { S: wid }, by: { S: by }, v: { N: '1' } });
  const copy = (items: [string, WireItem][], versions: Copy['versions'] = new Map()): Copy => ({ items: new Map(items), versions });
  /** d1 wrote site-0/job-0 (acknowledged, HLC 100); the hub, d2 and the endpoint all hold it. */
  function world(patch: Partial<TableWorld> = {}, rest: Partial<FleetFinal> = {}): FleetFinal {
    const ledger = new Ledger();
    Object.assign(ledger.issue('d1', { kind: 'put', site: 'site-0', job: 'job-0', wid: 'w1', v: 1 }), { state: 'acked', hlc: { ms: 100, counter: 0 }, image: item('w1', 'd1') });
    const held = item('w1', 'd1');
    const hub = copy([['site-0/job-0', held]], new Map([['site-0/job-0', { hlc: { ms: 100, counter: 0 }, device: 'd1', incarnation: 'i1' }]]));
    const table: TableWorld = {
      table: 'WorkOrders',
      twoWay: true,
      ledger,
      hub,
      devices: new Map([
        ['d1', copy([['site-0/job-0', held]])],
        ['d2', copy([['site-0/job-0', held]])],
      ]),
      endpoint: new Map([['site-0/job-0', held]]),
      ...patch,
    };
    return {
      tables: [table],
      devices: new Map([
        ['d1', { incarnation: 'i1', sites: ['site-0'] }],
        ['d2', { incarnation: 'i2', sites: ['site-0'] }],
      ]),
      reflashedAt: new Map(),
      expired: [],
      poison: [],
      deadLetters: [],
      ...rest,
    };
  }

  it('passes the honest outcome', () => {
    expect(checkFleet(world())).toEqual({ lost: [], divergent: [], deadLetters: [] });
  });

  it('finds a device copy that diverges from the hub, naming both sides', () => {
    const f = world({ devices: new Map([['d1', copy([['site-0/job-0', item('w1', 'd1')]])], ['d2', copy([['site-0/job-0', item('w0', 'd2')]])]]) });
    const v = checkFleet(f);
    expect(v.divergent.map((x) => x.text)).toEqual([expect.stringMatching(/^d2 holds site-0\/job-0 as .*w0.*, hub as .*w1/)]);
    expect(keysNamed(v.divergent)).toBe(1);
  });

  it('finds an acknowledged write the hub lost', () => {
    const f = world();
    Object.assign(f.tables[0]!.ledger.issue('d2', { kind: 'put', site: 'site-0', job: 'job-0', wid: 'w2', v: 1 }), { state: 'acked', hlc: { ms: 200, counter: 0 }, image: item('w2', 'd2') });
    expect(checkFleet(f).lost.map((x) => x.text)).toEqual([expect.stringContaining('acknowledged write w2 (put by d2 at 200.0) to site-0/job-0 is lost')]);
  });

  it('finds an endpoint that lacks an item or holds another version', () => {
    expect(checkFleet(world({ endpoint: new Map() })).divergent.map((x) => x.text)).toEqual([expect.stringMatching(/^endpoint lacks site-0\/job-0/)]);
    expect(checkFleet(world({ endpoint: new Map([['site-0/job-0', item('w9', 'hub')]]) })).divergent.map((x) => x.text)).toEqual([expect.stringMatching(/^endpoint holds site-0\/job-0 as .*w9/)]);
  });

  it('finds a device holding an item outside its subscriptions', () => {
    const f = world({}, { devices: new Map([['d1', { incarnation: 'i1', sites: ['site-0'] }], ['d2', { incarnation: 'i2', sites: ['site-9'] }]]) });
    expect(checkFleet(f).divergent.map((x) => x.text)).toContainEqual('d2 holds site-0/job-0 outside its subscriptions site-9');
  });

  it('wants exactly the poison records in the dead letters, refused by the endpoint', () => {
    const poison = [{ table: 'WorkOrders', key: 'site-0/job-0' }];
    const endpointWithout = { endpoint: new Map() };
    expect(checkFleet(world(endpointWithout, { poison })).deadLetters).toEqual(['the poison record WorkOrders site-0/job-0 is not in the dead letters']);
    const letter = { source: 'forward' as const, table: 'WorkOrders', key: 'site-0/job-0', reason: 'forward: ValidationException' };
    expect(checkFleet(world(endpointWithout, { poison, deadLetters: [letter] }))).toEqual({ lost: [], divergent: [], deadLetters: [] });
    expect(checkFleet(world({}, { deadLetters: [letter] })).deadLetters).toEqual([expect.stringContaining('is no record the endpoint should refuse')]);
    expect(checkFleet(world({}, { deadLetters: [{ ...letter, source: 'hub' }] })).deadLetters).toEqual([expect.stringContaining('the hub refused')]);
  });

  it('wants an expired TTL item gone from the hub, its writer and the endpoint', () => {
    const v = checkFleet(world({}, { expired: [{ table: 'WorkOrders', key: 'site-0/job-0', writer: 'd1' }] }));
    expect(v.divergent.map((x) => x.text)).toEqual(['hub still holds site-0/job-0, whose TTL expired', 'd1 still holds site-0/job-0, whose TTL expired', 'endpoint still holds site-0/job-0, whose TTL expired']);
  });

  it('does not hold a re-flashed device to the writes it made before its re-flash (up only)', () => {
    const f = world({ twoWay: false, devices: new Map([['d1', copy([])], ['d2', copy([])]]) });
    expect(checkFleet(f).divergent.map((x) => x.text)).toEqual([expect.stringMatching(/^d1: site-0\/job-0 is absent/)]);
    expect(checkFleet({ ...f, reflashedAt: new Map([['d1', new Map([['WorkOrders', 1]])]]) }).divergent).toEqual([]);
  });
});
