/**
 * The convergence test's world and its seeded schedule. A pure function of (seed, layout): the
 * same seed gives the same steps (CONVERGENCE_SEED replays them; the interleaving with the sync
 * traffic is the machine's, so a replay reproduces the schedule, not every timing).
 *
 * Table `WorkOrders`: site (S, HASH) / job (S, RANGE), 2 partitions. Sites are the partition keys
 * devices subscribe to; each device's set overlaps its neighbours' (device i: SITES[i % 3] and
 * SITES[(i + 1) % 3]; a fourth device only SITES[0]), and HUB_SITE is written by the hub alone, so
 * no device may ever hold it. Few jobs per site, so writers collide on keys all the time.
 */
import type { CreateTableInput } from '../../../src/api/table-operations.js';
import { createRng } from '../../reliability/harness/rng.js';

/** The table's name on a private broker; on a shared one (MQTT_URL) each run tags it (cluster.ts). */
export const TABLE = 'WorkOrders';
export const SITES = ['site-a', 'site-b', 'site-c'] as const;
export const HUB_SITE = 'site-h';
export const JOBS_PER_SITE = 6;

export const tableDefinition = (table = TABLE): CreateTableInput => ({
  TableName: table,
  KeySchema: [
    { AttributeName: 'site', KeyType: 'HASH' },
    { AttributeName: 'job', KeyType: 'RANGE' },
  ],
  AttributeDefinitions: [
    { AttributeName: 'site', AttributeType: 'S' },
    { AttributeName: 'job', AttributeType: 'S' },
  ],
  BillingMode: 'PAY_PER_REQUEST',
  PartitionCount: 2,
});

/** The partition keys device `index` subscribes to (and, up only, writes). */
export function deviceSites(index: number): string[] {
  return index < 3 ? [SITES[index % 3]!, SITES[(index + 1) % 3]!] : [SITES[0]];
}

/** 'hub' or a device index. */
export type Actor = 'hub' | number;

/**
 * One write. Every write stamps a unique `wid` (the write's id) and `by` (its writer), so the
 * value a key ends with names the write it came from. Updates use an UpdateExpression (SET and
 * ADD on a counter), so their image depends on what the writer held.
 */
export type Op = {
  readonly kind: 'put' | 'update' | 'delete';
  readonly site: string;
  readonly job: string;
  readonly wid: string;
  readonly v: number;
  /** A put only if the item is absent or its `v` is lower (the fleet test's conditional writes). */
  readonly cond?: boolean;
  /** More attributes of a put (the fleet test's TTL attribute, or a large one). */
  readonly attrs?: Readonly<Record<string, unknown>>;
};

export type Step =
  | { readonly t: 'write'; readonly actor: Actor; readonly op: Op }
  | { readonly t: 'pause'; readonly ms: number }
  | { readonly t: 'disconnect'; readonly device: number }
  | { readonly t: 'reconnect'; readonly device: number }
  | { readonly t: 'kill-device'; readonly device: number }
  | { readonly t: 'restart-device'; readonly device: number }
  | { readonly t: 'kill-hub' }
  | { readonly t: 'restart-hub' }
  | { readonly t: 'restart-broker'; readonly downMs: number };

const FAULT_KINDS = ['disconnect', 'kill-device', 'kill-hub', 'restart-broker'] as const;

export type ScheduleOptions = {
  readonly devices: number;
  /** Writes in the schedule. */
  readonly writes: number;
  /** Whether the hub writes to the devices' sites (two-way) or only to HUB_SITE (up only). */
  readonly hubWritesShared: boolean;
  /** Average pause between writes, ms. */
  readonly pauseMs: number;
};

/**
 * The steps: writes spread by short pauses, and now and then a fault. Every fault is undone later
 * in the schedule (a device disconnected is reconnected, a killed process restarted), and none
 * overlaps another of the same process, so the schedule ends with everything running.
 */
export function makeSchedule(seed: number, o: ScheduleOptions): Step[] {
  const rng = createRng(seed);
  const steps: Step[] = [];
  /** Per device: the write count at which its current fault ends (disconnect or kill), else -1. */
  const deviceFault = Array.from({ length: o.devices }, () => ({ until: -1, kind: '' as 'disconnect' | 'kill' | '' }));
  let hubDownUntil = -1;
  const firstFaults = [...FAULT_KINDS].sort(() => rng.next() - 0.5);
  let faults = 0;
  const faultEvery = Math.max(8, Math.floor(o.writes / 24));
  for (let w = 0; w < o.writes; w++) {
    for (let d = 0; d < o.devices; d++) {
      const f = deviceFault[d]!;
      if (f.kind !== '' && w >= f.until) {
        steps.push({ t: f.kind === 'kill' ? 'restart-device' : 'reconnect', device: d });
        f.kind = '';
      }
    }
    if (hubDownUntil >= 0 && w >= hubDownUntil) {
      steps.push({ t: 'restart-hub' });
      hubDownUntil = -1;
    }
    if (w > 0 && w % faultEvery === 0 && w < o.writes * 0.85) {
      // The first faults are one of each kind (in a seeded order), so every run has them all.
      const kind = faults < FAULT_KINDS.length ? firstFaults[faults]! : rng.pick(FAULT_KINDS);
      faults += 1;
      const d = rng.int(o.devices);
      const f = deviceFault[d]!;
      const lasts = 2 + rng.int(faultEvery);
      if (kind === 'disconnect' && f.kind === '') {
        steps.push({ t: 'disconnect', device: d });
        Object.assign(f, { kind: 'disconnect', until: w + lasts });
      } else if (kind === 'kill-device' && f.kind === '') {
        steps.push({ t: 'kill-device', device: d });
        Object.assign(f, { kind: 'kill', until: w + lasts });
      } else if (kind === 'kill-hub' && hubDownUntil < 0) {
        steps.push({ t: 'kill-hub' });
        hubDownUntil = w + lasts;
      } else {
        steps.push({ t: 'restart-broker', downMs: 100 + rng.int(400) });
      }
    }
    const actor: Actor = rng.chance(0.2) ? 'hub' : rng.int(o.devices);
    const sites = actor === 'hub' ? (o.hubWritesShared ? [...SITES, HUB_SITE] : [HUB_SITE]) : deviceSites(actor);
    const roll = rng.next();
    const op: Op = {
      kind: roll < 0.5 ? 'put' : roll < 0.8 ? 'update' : 'delete',
      site: rng.pick(sites),
      job: `job-${rng.int(JOBS_PER_SITE)}`,
      wid: `w${w}`,
      v: rng.int(1000),
    };
    steps.push({ t: 'write', actor, op });
    if (rng.chance(0.5)) steps.push({ t: 'pause', ms: rng.int(2 * o.pauseMs + 1) * 2 });
  }
  for (let d = 0; d < o.devices; d++) {
    const f = deviceFault[d]!;
    if (f.kind !== '') steps.push({ t: f.kind === 'kill' ? 'restart-device' : 'reconnect', device: d });
  }
  if (hubDownUntil >= 0) steps.push({ t: 'restart-hub' });
  return steps;
}

/** The DynamoDB request a write is, for the local engine and the AWS SDK alike (wire shapes). */
export function writeRequest(table: string, op: Op, by: string): { operation: 'PutItem' | 'UpdateItem' | 'DeleteItem'; request: Record<string, unknown> } {
  const Key = { site: { S: op.site }, job: { S: op.job } };
  if (op.kind === 'put') {
    const Item = { ...Key, wid: { S: op.wid }, by: { S: by }, v: { N: String(op.v) }, ...op.attrs };
    const condition = op.cond ? { ConditionExpression: 'attribute_not_exists(job) OR v < :v', ExpressionAttributeValues: { ':v': { N: String(op.v) } } } : {};
    return { operation: 'PutItem', request: { TableName: table, Item, ...condition } };
  }
  if (op.kind === 'update') {
    return {
      operation: 'UpdateItem',
      request: {
        TableName: table,
        Key,
        UpdateExpression: 'SET wid = :w, #by = :by, v = :v ADD n :one',
        ExpressionAttributeNames: { '#by': 'by' },
        ExpressionAttributeValues: { ':w': { S: op.wid }, ':by': { S: by }, ':v': { N: String(op.v) }, ':one': { N: '1' } },
        ReturnValues: 'ALL_NEW',
      },
    };
  }
  return { operation: 'DeleteItem', request: { TableName: table, Key, ReturnValues: 'ALL_OLD' } };
}

export const keyOf = (site: string, job: string): string => `${site}/${job}`;
