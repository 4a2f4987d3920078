/**
 * The fleet test's verdict, a pure function of the ledgers and the final copies:
 *   lost       the hub against the ledger of acknowledged writes (the convergence oracle's rules:
 *              the hub's version of each key names a write to it, and no acknowledged write is newer)
 *   divergent  every device against the hub for its subscriptions (two-way tables), its own writes
 *              (up only), nothing outside its subscriptions; the endpoint equal to the hub; a TTL
 *              item past its expiry gone from the hub, its writer and the endpoint
 *   deadLetters  exactly the planted poison records, refused by the endpoint; none refused by the hub
 * A re-flashed device starts empty: its writes before the re-flash count for the hub, not for its
 * own copy. Each finding names the table and key, with both sides where there are two.
 */
import { Ledger, checkConvergence, show, type FinalState, type WireItem, type WriteRecord } from '../sync/harness/oracle.js';
import type { Copy, DeadLetter } from './fleet-copies.js';

export type TableWorld = {
  readonly table: string;
  readonly twoWay: boolean;
  readonly ledger: Ledger;
  readonly hub: Copy;
  /** Device id -> its copy of the table. */
  readonly devices: ReadonlyMap<string, Copy>;
  /** The endpoint's items (forwarder's version attribute removed). */
  readonly endpoint: ReadonlyMap<string, WireItem>;
};

export type FleetFinal = {
  readonly tables: readonly TableWorld[];
  /** Device id -> its last incarnation and its partition keys (sites). */
  readonly devices: FinalState['devices'];
  /** Device id -> the ledger length (per table) when it was re-flashed last: its earlier writes are not in its copy. */
  readonly reflashedAt: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** TTL writes whose expiry had passed, by their writer's clock, well before the copies were read. */
  readonly expired: readonly { readonly table: string; readonly key: string; readonly writer: string }[];
  /** Poison writes acknowledged by their device: table/key. */
  readonly poison: readonly { readonly table: string; readonly key: string }[];
  readonly deadLetters: readonly DeadLetter[];
};

export type Finding = { readonly table: string; readonly text: string };
export type FleetVerdict = { readonly lost: Finding[]; readonly divergent: Finding[]; readonly deadLetters: string[] };

export function checkFleet(f: FleetFinal): FleetVerdict {
  const lost: Finding[] = [];
  const divergent: Finding[] = [];
  const poisonKeys = new Set(f.poison.map((p) => `${p.table}#${p.key}`));
  for (const t of f.tables) {
    const base = { twoWay: t.twoWay, devices: f.devices, hubItems: t.hub.items, hubVersions: t.hub.versions };
    for (const text of checkConvergence(t.ledger, { ...base, deviceItems: new Map(), deviceVersions: new Map() })) lost.push({ table: t.table, text });
    const deviceSide = withoutReflashed(t.ledger, t.table, f.reflashedAt);
    const deviceIds = [...f.devices.keys()];
    const onDevices = checkConvergence(deviceSide, {
      ...base,
      deviceItems: new Map([...t.devices].map(([id, c]) => [id, c.items] as const)),
      deviceVersions: new Map([...t.devices].map(([id, c]) => [id, c.versions] as const)),
    });
    // The oracle names a device first (`d1 holds ...`, `d1: site/job is ...`); what it says of the hub was checked above.
    for (const text of onDevices) if (deviceIds.some((id) => text.startsWith(`${id} `) || text.startsWith(`${id}: `))) divergent.push({ table: t.table, text });
    for (const [k, item] of t.hub.items) {
      if (poisonKeys.has(`${t.table}#${k}`)) continue;
      const there = t.endpoint.get(k);
      if (!there) divergent.push({ table: t.table, text: `endpoint lacks ${k}: hub holds ${show(item)}` });
      else if (show(there) !== show(item)) divergent.push({ table: t.table, text: `endpoint holds ${k} as ${show(there)}, hub as ${show(item)}` });
    }
    for (const [k, item] of t.endpoint) {
      if (!t.hub.items.has(k)) divergent.push({ table: t.table, text: `endpoint holds ${k} (${show(item)}), the hub does not` });
      else if (poisonKeys.has(`${t.table}#${k}`)) divergent.push({ table: t.table, text: `endpoint holds the poison record ${k}, which it must refuse` });
    }
  }
  for (const e of f.expired) {
    const t = f.tables.find((x) => x.table === e.table)!;
    if (t.hub.items.has(e.key)) divergent.push({ table: e.table, text: `hub still holds ${e.key}, whose TTL expired` });
    if (t.devices.get(e.writer)?.items.has(e.key)) divergent.push({ table: e.table, text: `${e.writer} still holds ${e.key}, whose TTL expired` });
    if (t.endpoint.has(e.key)) divergent.push({ table: e.table, text: `endpoint still holds ${e.key}, whose TTL expired` });
  }
  return { lost, divergent, deadLetters: checkDeadLetters(f) };
}

function checkDeadLetters(f: FleetFinal): string[] {
  const out: string[] = [];
  const want = new Set(f.poison.map((p) => `${p.table}#${p.key}`));
  const got = new Set<string>();
  for (const d of f.deadLetters) {
    if (d.source === 'hub') {
      out.push(`the hub refused ${d.table} ${d.key}: ${d.reason}`);
      continue;
    }
    const id = `${d.table}#${d.key}`;
    if (!want.has(id)) out.push(`dead letter ${d.table} ${d.key} (${d.reason}) is no record the endpoint should refuse`);
    got.add(id);
  }
  for (const id of want) if (!got.has(id)) out.push(`the poison record ${id.replace('#', ' ')} is not in the dead letters`);
  return out;
}

/** A copy of the ledger where each re-flashed device's writes before its re-flash count as never made (state 'failed'). */
function withoutReflashed(ledger: Ledger, table: string, reflashedAt: FleetFinal['reflashedAt']): Ledger {
  const out = new Ledger();
  for (const w of ledger.writes) {
    const cut = reflashedAt.get(w.writer)?.get(table) ?? -1;
    const copy: WriteRecord = { ...w, state: w.seq < cut ? 'failed' : w.state };
    out.writes.push(copy);
  }
  return out;
}

/** Distinct table/key pairs the findings name (a key is `site/job`). */
export function keysNamed(findings: readonly Finding[]): number {
  const keys = new Set<string>();
  for (const f of findings) {
    const m = /\b(site-[\w-]+\/[\w-]+)/.exec(f.text);
    keys.add(`${f.table}#${m ? m[1] : f.text}`);
  }
  return keys.size;
}
