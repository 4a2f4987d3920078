/**
 * The hub's down direction (docs/sync.md, "Down: hub to devices"): sends every device the changes
 * of the partitions it subscribed to, whether they were written at the hub (API) or arrived from
 * another device, and never a device's own writes back.
 *
 * It is one more reader of the hub tables' change logs (replication/hub-log.ts), beside the forwarder and the
 * Streams API, with a durable cursor per (device, incarnation, table, shard) (down-state.ts),
 * written only after the device acknowledged (its txn committed). Each record carries the version
 * of its write (its origin: device, incarnation, HLC; or, for a hub write, its HLC and the hub id),
 * which the device's last-writer-wins compares, and by which its own writes are filtered out.
 *
 * A new subscription, a device with a new table copy, or a cursor below what the log still holds
 * (records older than the version horizon are pruned) starts with a base read: the subscribed
 * partitions are sent whole, one page per message (base-reader.ts, resumable), then "base done",
 * after which the device drops what the base did not hold, and delivery continues from the log
 * positions the base started at.
 *
 * Flow control: at most `maxInFlight` unacknowledged messages per device, at most one per (table,
 * shard) and one base page per table, each at most `batchRecords` records / `batchBytes` bytes,
 * so a device's catch-up holds a bounded number of pages in memory on both sides. A message not
 * acknowledged within `ackTimeoutMs` is sent again from the durable state, after a back-off (the
 * device may be offline); a device's (re)subscription, sent on every connect, resumes it at once.
 */
import { randomUUID } from 'node:crypto';
import { encodePartitionPrefix } from '../codec/item-key.js';
import type { Edgetable } from '../edgetable.js';
import type { KeyValue } from '../model/attribute-value.js';
import { parseNumber } from '../model/number.js';
import { decodeStreamRecord, type ReplicaTable } from '../replication/replica-types.js';
import { decodeDownAck, decodeSubscription, encodeDownMessage, type DownEntry, type DownMessage, type PartitionKeyValue, type TableSubscription } from '../sync/protocol/down-messages.js';
import { tableSchema } from '../sync/protocol/table-schema.js';
import type { Topics } from '../sync/protocol/topics.js';
import type { BaseProgress } from '../replication/base-reader.js';
import { DEAD_LETTER_TABLE } from '../replication/dead-letters.js';
import type { DownState } from '../replication/down-state.js';

/** Decides whether a device may receive a table's partitions (undefined: the whole table). */
export type AuthorizeSubscription = (deviceId: string, table: string, partitionKeys: readonly PartitionKeyValue[] | undefined) => boolean;

export type DownPublisherOptions = {
  readonly db: Edgetable;
  readonly topics: Topics;
  readonly publish: (topic: string, payload: Uint8Array) => boolean;
  /** The writer id of writes made at the hub (their version's device id). */
  readonly hubId: string;
  readonly incarnation: string;
  readonly mergedTables: boolean;
  readonly authorize: AuthorizeSubscription;
  readonly batchRecords: number;
  readonly batchBytes: number;
  readonly maxInFlight: number;
  readonly ackTimeoutMs: number;
  readonly onError: (message: string) => void;
  /** When it returns a reason, every subscription is refused with it (a share group of several stores). */
  readonly refusal?: () => string | undefined;
};

export type DownSubscriptionStatus = {
  readonly device: string;
  readonly table: string;
  readonly state: 'waiting' | 'refused' | 'conflict' | 'base' | 'delta';
  readonly message?: string;
};

export type DownStatus = {
  /** Down messages sent (pages of changes, base pages, schemas) and the records they carried. */
  readonly messagesSent: number;
  readonly recordsSent: number;
  readonly acks: number;
  readonly timeouts: number;
  readonly baseReads: number;
  /** The most unacknowledged messages any device had at once (bounded by maxInFlight). */
  readonly maxInFlightSeen: number;
  readonly subscriptions: readonly DownSubscriptionStatus[];
};

/**
 * A message awaiting its ack. Flights of one lane (a table's schema, its base read, or one of its
 * shards) take effect in the order they were sent, whatever order their acks come in; a virtual
 * flight (records passed over without a message) waits its turn the same way.
 */
type Flight = { readonly id: string; readonly table: string; readonly lane: string; readonly sentAt: number; acked: boolean; readonly onAck: (sub: Sub, message: string) => void };

type Sub = {
  readonly request: TableSubscription;
  status: DownSubscriptionStatus['state'];
  message?: string;
  table?: ReplicaTable;
  prefixes?: Uint8Array[];
  prefixSet?: Set<string>;
  state?: DownState;
  schemaAcked: boolean;
  /** Pipelining: the last sequence sent per shard, the next base page, and whether "base done" went out. */
  sentTo: Record<string, number>;
  baseNext?: BaseProgress;
  baseDoneSent: boolean;
};

type Device = {
  readonly id: string;
  readonly incarnation: string;
  readonly subs: Map<string, Sub>;
  readonly flights: Map<string, Flight>;
  readonly lanes: Map<string, Flight[]>;
  pausedUntil: number;
  failures: number;
};

const MAX_PAUSE_MS = 30_000;

export class DownPublisher {
  /** The last down-state save (they settle in order). */
  private saving: Promise<void> = Promise.resolve();
  /**
   * Down states saved but not yet committed (their commit runs on a worker): what the store still
   * holds is older, so the hub reads these first (a device that subscribes again meanwhile would
   * otherwise resume from the state before, e.g. start its finished base read again).
   */
  private readonly unsaved = new Map<string, DownState>();
  private readonly devices = new Map<string, Device>();
  private readonly run = randomUUID().slice(0, 8);
  private nextId = 1;
  private readonly counters = { messagesSent: 0, recordsSent: 0, acks: 0, timeouts: 0, baseReads: 0, maxInFlightSeen: 0 };

  constructor(private readonly o: DownPublisherOptions) {}

  status(): DownStatus {
    const subscriptions: DownSubscriptionStatus[] = [];
    for (const d of this.devices.values()) {
      for (const [table, s] of d.subs) subscriptions.push({ device: d.id, table, state: s.status, ...(s.message !== undefined ? { message: s.message } : {}) });
    }
    return { ...this.counters, subscriptions };
  }

  /** A device's subscriptions (sent on every connect): replaces the previous ones, resumes at once. */
  onSubscribe(deviceId: string, payload: Uint8Array): void {
    const request = decodeSubscription(payload);
    const device: Device = { id: deviceId, incarnation: request.incarnation, subs: new Map(), flights: new Map(), lanes: new Map(), pausedUntil: 0, failures: 0 };
    for (const t of request.tables) device.subs.set(t.table, { request: t, status: 'waiting', schemaAcked: false, sentTo: {}, baseDoneSent: false });
    this.devices.set(deviceId, device);
    for (const [name, sub] of device.subs) this.admit(device, name, sub);
  }

  onAck(deviceId: string, payload: Uint8Array): void {
    const ack = decodeDownAck(payload);
    const device = this.devices.get(deviceId);
    if (!device || ack.incarnation !== device.incarnation) return;
    const flight = device.flights.get(ack.id);
    if (!flight) return; // an ack of a message sent before a resubscription or a restart
    this.counters.acks += 1;
    device.failures = 0;
    const sub = device.subs.get(flight.table);
    if (!sub) return;
    if (ack.status !== 'applied') {
      if (ack.status === 'conflict') {
        sub.status = 'conflict';
        sub.message = ack.message;
      }
      this.restart(device); // what follows the message in its lane must not take effect before it
      return;
    }
    device.flights.delete(ack.id);
    flight.acked = true;
    const laneKey = `${flight.table}\u0000${flight.lane}`;
    const lane = device.lanes.get(laneKey) ?? [];
    let moved = false;
    while (lane.length > 0 && lane[0]!.acked) {
      lane.shift()!.onAck(sub, ack.message);
      moved = true;
    }
    if (lane.length === 0) device.lanes.delete(laneKey);
    if (moved && sub.state) this.save(device, flight.table, sub.state);
  }

  /** Forgets every device (this hub no longer serves down); their retained subscriptions bring them back. */
  forget(): void {
    this.devices.clear();
  }

  /** Forgets every message in flight to the device: the next pass resends from the durable state. */
  private restart(device: Device): void {
    device.flights.clear();
    device.lanes.clear();
    for (const sub of device.subs.values()) {
      sub.sentTo = {};
      sub.baseNext = undefined;
      sub.baseDoneSent = false;
    }
  }

  /** One round over every device: time-outs, then whatever is due. Never throws. */
  pass(now = Date.now()): void {
    for (const device of this.devices.values()) {
      try {
        this.serve(device, now);
      } catch (err) {
        this.o.onError(`down to ${device.id}: ${(err as Error).message}`);
      }
    }
  }

  private admit(device: Device, name: string, sub: Sub): void {
    const keys = sub.request.partitionKeys?.map((k) => (k.type === 'N' ? Number(k.value) : k.value));
    if (!this.o.mergedTables) return this.refuse(device, name, sub, 'down sync needs a hub in merged mode');
    const refusal = this.o.refusal?.();
    if (refusal !== undefined) return this.refuse(device, name, sub, refusal);
    if (name === DEAD_LETTER_TABLE) return this.refuse(device, name, sub, `${DEAD_LETTER_TABLE} cannot be subscribed to`);
    let allowed: boolean;
    try {
      allowed = this.o.authorize(device.id, name, keys);
    } catch (err) {
      allowed = false;
      this.o.onError(`authorizeSubscription threw: ${(err as Error).message}`);
    }
    if (!allowed) this.refuse(device, name, sub, `device ${device.id} is not allowed to subscribe to ${name}${keys ? ` partitions ${keys.map(String).join(', ')}` : ''}`);
  }

  private refuse(device: Device, table: string, sub: Sub, message: string): void {
    sub.status = 'refused';
    sub.message = message;
    this.send(device, { kind: 'refused', table, id: this.newId(), message });
  }

  private serve(device: Device, now: number): void {
    for (const f of device.flights.values()) {
      if (now - f.sentAt < this.o.ackTimeoutMs) continue;
      // Unacknowledged: the device may be offline. Start over from the durable state, later.
      this.counters.timeouts += 1;
      this.restart(device);
      device.failures += 1;
      device.pausedUntil = now + Math.min(MAX_PAUSE_MS, this.o.ackTimeoutMs * 2 ** Math.min(device.failures - 1, 8));
      for (const sub of device.subs.values()) if (sub.status !== 'refused' && sub.status !== 'conflict') sub.schemaAcked = false;
      break;
    }
    if (now < device.pausedUntil) return;
    for (const [name, sub] of device.subs) {
      if (device.flights.size >= this.o.maxInFlight) return;
      if (sub.status === 'refused' || sub.status === 'conflict') continue;
      if (!this.prepare(device, name, sub)) continue;
      if (!sub.schemaAcked) {
        if (!this.busy(device, name, 'schema')) this.sendSchema(device, name, sub);
        continue;
      }
      if (sub.state!.phase === 'base') {
        while (device.flights.size < this.o.maxInFlight && !sub.baseDoneSent && this.sendBasePage(device, name, sub));
        continue;
      }
      if (this.behind(sub)) {
        this.startBase(device, name, sub);
        continue;
      }
      for (const { shard } of this.o.db.replica.logShards(sub.table!.name)) {
        while (device.flights.size < this.o.maxInFlight && this.sendDelta(device, name, sub, shard));
      }
    }
  }

  /** Resolves the hub table and the durable state; false while the table does not exist. */
  private prepare(device: Device, name: string, sub: Sub): boolean {
    const table = this.o.db.replica.table(name);
    if (!table) {
      sub.status = 'waiting';
      sub.message = `the hub has no table ${name} yet`;
      return false;
    }
    if (sub.table === table && sub.state) return true;
    if (sub.table !== table) {
      sub.table = table;
      sub.state = undefined;
      try {
        sub.prefixes = sub.request.partitionKeys?.map((k) => encodePartitionPrefix(keyValue(table, k)).bytes);
      } catch (err) {
        this.refuse(device, name, sub, (err as Error).message);
        return false;
      }
      sub.prefixSet = sub.prefixes ? new Set(sub.prefixes.map(hex)) : undefined;
    }
    const fingerprint = `${table.def.TableId}|${sub.prefixes ? sub.prefixes.map(hex).sort().join(',') : '*'}`;
    const kept = this.unsaved.get(stateKey(device, name)) ?? this.o.db.replica.downState(device.id, device.incarnation, name);
    if (kept && kept.fingerprint === fingerprint && kept.deviceTableId !== undefined && kept.deviceTableId === sub.request.tableId) {
      sub.state = kept;
    } else {
      sub.state = { fingerprint, phase: 'base', base: { id: randomUUID(), progress: { pk: 0 }, start: this.lastSeqs(table) }, cursors: {} };
      this.counters.baseReads += 1;
      this.save(device, name, sub.state);
    }
    sub.status = sub.state.phase;
    sub.message = undefined;
    return true;
  }

  private startBase(device: Device, name: string, sub: Sub): void {
    for (const [id, f] of device.flights) if (f.table === name) device.flights.delete(id);
    for (const key of [...device.lanes.keys()]) if (key.startsWith(`${name}\u0000`)) device.lanes.delete(key);
    sub.sentTo = {};
    sub.baseNext = undefined;
    sub.baseDoneSent = false;
    sub.state = { ...sub.state!, phase: 'base', base: { id: randomUUID(), progress: { pk: 0 }, start: this.lastSeqs(sub.table!) } };
    sub.status = 'base';
    this.counters.baseReads += 1;
    this.save(device, name, sub.state);
  }

  /** A cursor below the oldest record the log still holds (pruned): the device must re-read. */
  private behind(sub: Sub): boolean {
    for (const { shard, firstSeq, lastSeq } of this.o.db.replica.logShards(sub.table!.name)) {
      const cursor = sub.state!.cursors[shard] ?? 0;
      if (cursor >= lastSeq) continue;
      if (firstSeq === undefined || firstSeq > cursor + 1) return true;
    }
    return false;
  }

  private sendSchema(device: Device, name: string, sub: Sub): void {
    void this.fly(device, name, 'schema', { kind: 'schema', table: name, id: this.newId(), schema: JSON.stringify({ table: tableSchema(sub.table!.def), phase: sub.state!.phase }) }, 0, (s, deviceTableId) => {
      s.schemaAcked = true;
      if (s.state && s.state.deviceTableId !== deviceTableId) s.state = { ...s.state, deviceTableId };
    });
  }

  /** Sends the next page of the base read (or "base done"); false when nothing could be sent. */
  private sendBasePage(device: Device, name: string, sub: Sub): boolean {
    const state = sub.state!;
    const base = state.base!;
    const page = this.o.db.replica.readBasePage(sub.table!.name, sub.prefixes, sub.baseNext ?? base.progress, this.o.batchRecords, this.o.batchBytes, { device: this.o.hubId, incarnation: this.o.incarnation });
    if (page.items.length === 0 && page.done) {
      // Captured and sent in one synchronous step: what the hub applies after this point is
      // delivered from the log even when it is the device's own write (down-state.ts echoFrom).
      const echoFrom = this.lastSeqs(sub.table!);
      sub.baseDoneSent = true;
      return this.fly(device, name, 'base', { kind: 'base-done', table: name, id: this.newId(), baseId: base.id }, 0, (s) => {
        const cursors: Record<string, number> = { ...s.state!.cursors };
        for (const [shard, seq] of Object.entries(base.start)) cursors[shard] = Math.max(cursors[shard] ?? 0, seq);
        s.state = { fingerprint: s.state!.fingerprint, ...(s.state!.deviceTableId !== undefined ? { deviceTableId: s.state!.deviceTableId } : {}), phase: 'delta', cursors, echoFrom };
        s.status = 'delta';
      });
    }
    const entries: DownEntry[] = page.items.map(({ item, version }) => ({ remove: false, keys: keysOf(sub.table!, item), image: item, version }));
    sub.baseNext = page.next;
    return this.fly(device, name, 'base', { kind: 'changes', table: name, id: this.newId(), baseId: base.id, entries }, entries.length, (s) => {
      if (s.state?.base?.id === base.id) s.state = { ...s.state, base: { ...s.state.base, progress: page.next } };
    });
  }

  /** Sends the next records of one shard; false when there was nothing after what was sent. */
  private sendDelta(device: Device, name: string, sub: Sub, shard: number): boolean {
    const table = sub.table!;
    const state = sub.state!;
    const from = Math.max(state.cursors[shard] ?? 0, sub.sentTo[shard] ?? 0);
    const raw = this.o.db.replica.readChanges(table.name, shard, from + 1, this.o.batchRecords, this.o.batchBytes);
    if (raw.length === 0) return false;
    const echoFrom = state.echoFrom?.[shard] ?? 0;
    const pk = table.partitionKey.name;
    const entries: DownEntry[] = [];
    for (const { seq, bytes } of raw) {
      const r = decodeStreamRecord(bytes);
      if (r.kind !== 'change') continue;
      if (r.origin && r.origin.device === device.id && r.origin.incarnation === device.incarnation && seq > echoFrom) continue; // its own write
      if (sub.prefixSet && !sub.prefixSet.has(hex(encodePartitionPrefix(r.keys[pk] as KeyValue).bytes))) continue;
      const version = r.origin ?? { hlc: r.hlc, device: this.o.hubId, incarnation: this.o.incarnation };
      entries.push(r.eventName === 'REMOVE' ? { remove: true, keys: r.keys, version } : { remove: false, keys: r.keys, image: r.newImage!, version });
    }
    const last = raw[raw.length - 1]!.seq;
    const advance = (s: Sub) => {
      if (s.state && s.state.phase === 'delta') s.state = { ...s.state, cursors: { ...s.state.cursors, [shard]: Math.max(s.state.cursors[shard] ?? 0, last) } };
    };
    sub.sentTo[shard] = last;
    const laneKey = `${name}\u0000s${shard}`;
    if (entries.length === 0) {
      // Nothing for this device in these records: move past them without a message (after what is
      // in flight on the shard, if anything is).
      const lane = device.lanes.get(laneKey);
      if (lane) lane.push({ id: '', table: name, lane: `s${shard}`, sentAt: Date.now(), acked: true, onAck: advance });
      else {
        advance(sub);
        this.save(device, name, sub.state!);
      }
      return true;
    }
    return this.fly(device, name, `s${shard}`, { kind: 'changes', table: name, id: this.newId(), entries }, entries.length, (s) => advance(s));
  }

  private lastSeqs(table: ReplicaTable): Record<string, number> {
    const out: Record<string, number> = {};
    for (const { shard, lastSeq } of this.o.db.replica.logShards(table.name)) out[shard] = lastSeq;
    return out;
  }

  private busy(device: Device, table: string, lane: string): boolean {
    for (const f of device.flights.values()) if (f.table === table && f.lane === lane) return true;
    return false;
  }

  private fly(device: Device, table: string, lane: string, message: DownMessage, records: number, onAck: Flight['onAck']): boolean {
    if (!this.send(device, message)) {
      this.restart(device); // offline: whatever was read for this message is read again later
      return false;
    }
    const flight: Flight = { id: message.id, table, lane, sentAt: Date.now(), acked: false, onAck };
    device.flights.set(message.id, flight);
    const laneKey = `${table}\u0000${lane}`;
    const queue = device.lanes.get(laneKey);
    if (queue) queue.push(flight);
    else device.lanes.set(laneKey, [flight]);
    this.counters.recordsSent += records;
    this.counters.maxInFlightSeen = Math.max(this.counters.maxInFlightSeen, device.flights.size);
    return true;
  }

  private send(device: Device, message: DownMessage): boolean {
    const sent = this.o.publish(this.o.topics.down(device.id), encodeDownMessage(message));
    if (sent) this.counters.messagesSent += 1;
    return sent;
  }

  /**
   * Persists a device's down state off the event loop (the Replica's commit queue: FIFO, so saves
   * land in the order made). Nothing waits for it: a state lost to a crash only makes the hub resend from
   * an earlier cursor, which the device applies by last-writer-wins (or a new base read).
   */
  private save(device: Device, table: string, state: DownState): void {
    const key = stateKey(device, table);
    this.unsaved.set(key, state);
    const saved = this.o.db.replica.saveDownState(device.id, device.incarnation, table, state);
    const done = () => {
      if (this.unsaved.get(key) === state) this.unsaved.delete(key); // a later save keeps its own
    };
    this.saving = saved.then(done, (err: unknown) => {
      done();
      this.o.onError(`saving the down state of ${device.id}: ${(err as Error).message}`);
    });
  }

  /** Resolves once every down state saved so far is durable (or failed and was reported). */
  settled(): Promise<void> {
    return this.saving;
  }

  private newId(): string {
    return `${this.run}.${this.nextId++}`;
  }
}

/** A subscribed partition key value as the hub table's key type wants it. */
function keyValue(table: ReplicaTable, k: { readonly type: 'S' | 'N' | 'B'; readonly value: string | Uint8Array }): KeyValue {
  const { name, type } = table.partitionKey;
  const bad = () => new Error(`partition key ${name} of ${table.name} is of type ${type}: ${k.type === 'B' ? 'binary' : JSON.stringify(k.value)} does not fit`);
  if (type === 'S') {
    if (k.type !== 'S') throw bad();
    return { S: k.value as string };
  }
  if (type === 'N') {
    if (k.type === 'B') throw bad();
    try {
      return { N: parseNumber(k.value as string) };
    } catch {
      throw bad();
    }
  }
  if (k.type !== 'B') throw bad();
  return { B: k.value as Uint8Array };
}

function keysOf(table: ReplicaTable, item: Record<string, unknown>): Record<string, never> {
  const keys: Record<string, unknown> = {};
  for (const n of table.keyNames) keys[n] = item[n];
  return keys as Record<string, never>;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function stateKey(device: Device, table: string): string {
  return `${device.id}\u0000${device.incarnation}\u0000${table}`;
}
