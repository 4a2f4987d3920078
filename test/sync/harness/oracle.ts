/**
 * What the convergence test knows and checks. The ledger records every write the schedule issued
 * and how it ended: `acked` (the call returned: committed where it was made), `maybe` (its process
 * was SIGKILLed before answering: committed or not), `failed` (refused, e.g. the table did not
 * exist yet: not applied). `checkConvergence` compares the final copies against it:
 *
 * - The hub, key by key, by last-writer-wins. The hub's version record of a key (the HLC, device
 *   and incarnation of the write that owns it, tombstones included) names the winner W:
 *   - W is one of the writes to that key (an acknowledged device write with exactly that HLC, or
 *     an unanswered one of that writer), and the hub's item is W's image (absent for a delete);
 *   - no acknowledged write is newer than W: a device write's known version, a hub write's clock
 *     read before it was issued (its HLC is later), must not exceed W's. So an acknowledged write
 *     is present with its value or superseded by a later-HLC write: never lost.
 *   A key only one writer ever wrote without version records (the hub's own site when sync goes
 *   up only) must hold that writer's last acknowledged write, or a later unanswered one.
 * - Two-way: every device's table equals the hub's restricted to its subscribed partition keys,
 *   no device holds an item of a partition key it does not subscribe to, and a version record a
 *   device keeps for a key names the same write as the hub's (one winner everywhere).
 * - Up only: every device holds exactly its own writes' last state (nothing else reaches it).
 * - No copy holds an item no write made.
 */
import { compareHlc, type Hlc } from '../../../src/stream/hlc.js';
import { compareVersions, type Version } from '../../../src/replication/hub-records.js';
import { keyOf, type Op } from './workload.js';

export type WireItem = Record<string, Record<string, unknown>>;

export type WriteRecord = {
  /** Issue order over the whole run. */
  readonly seq: number;
  /** A device id, or 'hub'. */
  readonly writer: string;
  readonly op: Op;
  state: 'pending' | 'acked' | 'maybe' | 'failed';
  /** Acknowledged device write: the HLC its change record took. */
  hlc?: Hlc;
  /** Acknowledged hub write: the hub clock before and after it (its HLC lies between). */
  lo?: Hlc;
  hi?: Hlc;
  /** The write changed nothing (a delete of an absent item): no change record, no version. */
  noop?: boolean;
  /** The item it left (put, update), as acknowledged. */
  image?: WireItem;
  error?: string;
};

/** A write's answer: a device's (the HLC its record took) or the hub's (its clock before and after). */
export type WriteAnswer = { readonly noop: boolean; readonly image?: Record<string, unknown>; readonly hlc?: Hlc; readonly lo?: Hlc; readonly hi?: Hlc };

/** Records that the writer acknowledged `w` with answer `r`. */
export function recordAcked(w: WriteRecord, r: WriteAnswer): void {
  w.state = 'acked';
  w.noop = r.noop;
  if (r.image) w.image = r.image as WireItem;
  if (r.lo && r.hi) Object.assign(w, { lo: r.lo, hi: r.hi });
  else if (r.hlc) w.hlc = r.hlc;
}

export class Ledger {
  readonly writes: WriteRecord[] = [];

  issue(writer: string, op: Op): WriteRecord {
    const w: WriteRecord = { seq: this.writes.length, writer, op, state: 'pending' };
    this.writes.push(w);
    return w;
  }

  counts(): Record<WriteRecord['state'] | 'noop', number> {
    const c = { pending: 0, acked: 0, maybe: 0, failed: 0, noop: 0 };
    for (const w of this.writes) {
      c[w.state] += 1;
      if (w.noop) c.noop += 1;
    }
    return c;
  }
}

export type FinalState = {
  readonly twoWay: boolean;
  /** Device id -> its incarnation and subscribed partition keys. */
  readonly devices: ReadonlyMap<string, { readonly incarnation: string; readonly sites: readonly string[] }>;
  readonly hubItems: ReadonlyMap<string, WireItem>;
  readonly hubVersions: ReadonlyMap<string, Version>;
  readonly deviceItems: ReadonlyMap<string, ReadonlyMap<string, WireItem>>;
  /** Each device's version records (two-way: a device keeps them for the tables it receives). */
  readonly deviceVersions?: ReadonlyMap<string, ReadonlyMap<string, Version>>;
};

export function checkConvergence(ledger: Ledger, final: FinalState): string[] {
  const violations: string[] = [];
  const byKey = new Map<string, WriteRecord[]>();
  for (const w of ledger.writes) {
    if (w.state === 'pending') violations.push(`write ${w.op.wid} by ${w.writer} never settled`);
    if (w.state === 'failed' || w.noop) continue;
    const k = keyOf(w.op.site, w.op.job);
    byKey.set(k, [...(byKey.get(k) ?? []), w]);
  }
  for (const [k, item] of final.hubItems) if (!byKey.has(k)) violations.push(`hub holds ${k} (${show(item)}), which no write made`);
  for (const [k, writes] of byKey) {
    const v = final.hubVersions.get(k);
    if (v) checkWinner(k, writes, v, final, violations);
    else if (writes.some((w) => w.state === 'acked' && w.writer !== 'hub')) violations.push(`hub has no version of ${k}, yet acknowledged device writes made it: ${writes.filter((w) => w.state === 'acked').map((w) => w.op.wid).join(', ')}`);
    else checkSequential(`hub: ${k}`, writes, final.hubItems.get(k), violations);
  }
  for (const [device, items] of final.deviceItems) {
    const { sites } = final.devices.get(device)!;
    for (const [k, item] of items) {
      if (!sites.includes(item['site']!['S'] as string)) violations.push(`${device} holds ${k} outside its subscriptions ${sites.join(', ')}`);
    }
    if (final.twoWay) {
      for (const [k, item] of final.hubItems) {
        if (!sites.includes(item['site']!['S'] as string)) continue;
        const mine = items.get(k);
        if (!mine) violations.push(`${device} lacks ${k}: hub holds ${show(item)}`);
        else if (show(mine) !== show(item)) violations.push(`${device} holds ${k} as ${show(mine)}, hub as ${show(item)}`);
      }
      for (const [k, item] of items) if (!final.hubItems.has(k)) violations.push(`${device} holds ${k} (${show(item)}), the hub does not`);
      // The same winner everywhere: where the device keeps a version, it is the hub's.
      for (const [k, mine] of final.deviceVersions?.get(device) ?? []) {
        const hubs = final.hubVersions.get(k);
        if (hubs && compareVersions(mine, hubs) !== 0) violations.push(`${device} keeps version ${showVersion(mine)} of ${k}, the hub ${showVersion(hubs)}`);
      }
    } else {
      const own = new Map<string, WriteRecord[]>();
      for (const [k, writes] of byKey) {
        const mine = writes.filter((w) => w.writer === device);
        if (mine.length > 0) own.set(k, mine);
      }
      for (const [k, item] of items) if (!own.has(k)) violations.push(`${device} holds ${k} (${show(item)}), which it never wrote (sync goes up only)`);
      for (const [k, writes] of own) checkSequential(`${device}: ${k}`, writes, items.get(k), violations);
    }
  }
  return violations;
}

/** The hub's version record names the winner: it must be a write to the key, and no acknowledged write newer. */
function checkWinner(k: string, writes: WriteRecord[], v: Version, final: FinalState, violations: string[]): void {
  const item = final.hubItems.get(k);
  const winnerWriter = final.devices.has(v.device) ? v.device : 'hub';
  const candidates = writes.filter((w) => w.writer === winnerWriter && (item ? w.op.kind !== 'delete' && w.op.wid === item['wid']?.['S'] : w.op.kind === 'delete'));
  const exact = candidates.find((w) => w.state === 'acked' && w.hlc !== undefined && compareHlc(w.hlc, v.hlc) === 0);
  // A hub write's HLC is known only as an interval; an unanswered write's not at all.
  const winner = exact ?? candidates.find((w) => w.state === 'maybe' || (w.lo && w.hi && compareHlc(w.lo, v.hlc) <= 0 && compareHlc(v.hlc, w.hi) <= 0));
  if (!winner) {
    violations.push(`hub: ${k} is ${item ? show(item) : 'deleted'} by version ${showVersion(v)}, which matches no write of ${winnerWriter} to it`);
    return;
  }
  if (item && winner.state === 'acked' && winner.image && show(winner.image) !== show(item)) {
    violations.push(`hub: ${k} is ${show(item)}, but its winning write ${winner.op.wid} left ${show(winner.image)}`);
  }
  for (const w of writes) {
    if (w.state !== 'acked' || w === winner) continue;
    if (w.hlc) {
      const mine: Version = { hlc: w.hlc, device: w.writer, incarnation: final.devices.get(w.writer)?.incarnation ?? '' };
      if (compareVersions(mine, v) > 0) violations.push(`hub: acknowledged write ${w.op.wid} (${w.op.kind} by ${w.writer} at ${showHlc(w.hlc)}) to ${k} is lost: the hub kept ${showVersion(v)}, an older version`);
    } else if (w.lo && compareHlc(w.lo, v.hlc) > 0) {
      violations.push(`hub: acknowledged hub write ${w.op.wid} (${w.op.kind}, issued after ${showHlc(w.lo)}) to ${k} is lost: the hub kept ${showVersion(v)}, an older version`);
    }
  }
}

/**
 * One writer's keys without versions: the final state is its last acknowledged write's, or that
 * of a later unanswered one (its process was killed after it may have committed it).
 */
function checkSequential(where: string, writes: WriteRecord[], item: WireItem | undefined, violations: string[]): void {
  let lastAcked = -1;
  writes.forEach((w, i) => {
    if (w.state === 'acked') lastAcked = i;
  });
  const allowed = writes.filter((w, i) => i === lastAcked || (i > lastAcked && w.state === 'maybe'));
  const ok = allowed.some((w) => (item ? w.op.kind !== 'delete' && w.op.wid === item['wid']?.['S'] && (!w.image || show(w.image) === show(item)) : w.op.kind === 'delete'));
  const nothingAcked = lastAcked < 0 && !item; // only unanswered writes, none of which committed
  if (!ok && !nothingAcked) {
    const expected = allowed.map((w) => `${w.op.wid} (${w.op.kind}, ${w.state})`).join(' or ');
    violations.push(`${where} is ${item ? show(item) : 'absent'}; expected ${expected || 'nothing'}`);
  }
}

/** Canonical JSON of an item: attribute names sorted. */
export function show(item: WireItem): string {
  return JSON.stringify(Object.keys(item).sort().map((k) => [k, item[k]]));
}

const showHlc = (h: Hlc) => `${h.ms}.${h.counter}`;
const showVersion = (v: Version) => `${showHlc(v.hlc)}/${v.device}`;
