/**
 * Hub presence: every hub announces itself on `<root>/$hubs/<instance>` (topics.ts), retained,
 * and listens to the other hubs' records, so it knows which hubs are live on its namespace and
 * whether it may consume (hub-election.ts). Its own MQTT connection, so a batch commit that holds
 * the consuming link never delays a heartbeat, and that connection's last will clears the record:
 * a crash or a SIGKILL is seen by the others as soon as the broker notices the socket gone.
 *
 * Record (JSON, format 1): { v: 1, hubId, instance, incarnation, startedAt, host, pid, shareGroup?,
 *   mode, role, refreshedAt, intervalMs }; an empty retained payload clears it.
 *
 * Liveness: a record is live for 3 heartbeats (`intervalMs`, republished on that period) after it
 * last arrived, by this hub's clock (never the sender's: hosts' clocks differ). A record past that
 * (its hub and the broker's will both lost, e.g. a broker restart that kept the retained record)
 * is dropped and cleared on the broker. Since a retained copy may be such a leftover, a hub stands
 * by for it but latches (hub-election.ts) only once that hub proved alive: a fresh copy arrived
 * (every hub republishes its record when it hears a new hub, so that is at once), or its record
 * was cleared by its stop() or its will.
 *
 * Start: the hub is 'starting' until its own record comes back through the broker (the retained
 * records of the others were delivered before it) and `settleMs` more have passed (records of hubs
 * starting at the same moment); then it decides. It decides again on every record heard and every
 * heartbeat, so two hubs that meet while both consume (a healed partition) settle on one.
 * A record that never comes back (a broker ACL without the presence topic) does not stop the hub:
 * after ECHO_TIMEOUT_MS it decides on what it heard, and says (log, status().presenceError) that
 * it cannot see the other hubs.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { MqttLink } from '../sync/mqtt-link.js';
import type { TlsOptions } from '../sync/sync-options.js';
import type { Topics } from '../sync/protocol/topics.js';
import { log } from '../log/logger.js';
import { decideRole, type HubPresence, type HubRole, type RoleDecision } from './hub-election.js';

export const PRESENCE_FORMAT_VERSION = 1;
export const DEFAULT_PRESENCE_INTERVAL_MS = 10_000;
export const DEFAULT_PRESENCE_SETTLE_MS = 300;
/** How often a standby hub says again why it applies nothing. */
const STANDBY_LOG_EVERY_MS = 60_000;
const LIVE_HEARTBEATS = 3;
const ECHO_TIMEOUT_MS = 5000;

export type PresenceRecord = HubPresence & { readonly refreshedAt: number; readonly intervalMs: number };

/** A hub as status() lists it: its record, and whether it is this hub. */
export type SeenHub = HubPresence & { readonly self: boolean };

export type PresenceStatus = {
  readonly role: HubRole;
  /** Why this hub stands by (it applies nothing, serves no device). */
  readonly standbyReason?: string;
  /** Why two-way subscriptions are refused or served elsewhere (share groups). */
  readonly downReason?: string;
  /** Set while this hub's own presence record does not come back: it cannot see the other hubs. */
  readonly presenceError?: string;
  /** This hub first, then every live hub it sees on the namespace, oldest first. */
  readonly hubs: readonly SeenHub[];
};

export type PresenceOptions = TlsOptions & {
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly reconnectPeriodMs: number;
  readonly topics: Topics;
  readonly hubId: string;
  readonly incarnation: string;
  readonly shareGroup?: string;
  readonly mode: 'merged' | 'per-device';
  readonly intervalMs?: number;
  readonly settleMs?: number;
  /** Called when the decision changes (role, down duty or reason); never throws into the link. */
  readonly onDecision: (decision: RoleDecision) => void;
};

export function encodePresence(record: PresenceRecord): string {
  return JSON.stringify({ v: PRESENCE_FORMAT_VERSION, ...record });
}

/** The record, or undefined for a payload that is not one (another format, a stray publish). */
export function decodePresence(payload: Buffer | string): PresenceRecord | undefined {
  try {
    const r = JSON.parse(payload.toString()) as Partial<PresenceRecord> & { v?: unknown };
    const str = (v: unknown) => typeof v === 'string';
    const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
    if (r.v !== PRESENCE_FORMAT_VERSION || !str(r.hubId) || !str(r.instance) || !str(r.incarnation) || !str(r.host)) return undefined;
    if (!num(r.startedAt) || !num(r.pid) || !num(r.refreshedAt) || !num(r.intervalMs) || (r.intervalMs as number) <= 0) return undefined;
    if (r.role !== 'starting' && r.role !== 'active' && r.role !== 'standby') return undefined;
    if (r.mode !== 'merged' && r.mode !== 'per-device') return undefined;
    if (r.shareGroup !== undefined && !str(r.shareGroup)) return undefined;
    const { v: _v, ...record } = r;
    return record as PresenceRecord;
  } catch {
    return undefined;
  }
}

export class HubPresenceTracker {
  readonly instance = randomBytes(8).toString('hex');
  private readonly startedAt = Date.now();
  private readonly intervalMs: number;
  private readonly settleMs: number;
  private readonly link: MqttLink;
  /** `refreshed`: a copy arrived that was not the retained one, so its hub was alive since this hub subscribed. */
  private readonly heard = new Map<string, { record: PresenceRecord; heardAt: number; refreshed: boolean }>();
  private role: HubRole = 'starting';
  private decision: RoleDecision | undefined;
  private latched: (RoleDecision & { role: 'standby' }) | undefined;
  /** When the hub may leave 'starting': its own record came back and settleMs passed. */
  private settledAt = Number.POSITIVE_INFINITY;
  private loggedStandbyAt = 0;
  private readonly heartbeat: NodeJS.Timeout;
  private settleTimer: NodeJS.Timeout | undefined;
  private echoTimer: NodeJS.Timeout | undefined;
  private presenceError: string | undefined;
  private stopped = false;

  constructor(private readonly o: PresenceOptions) {
    this.intervalMs = o.intervalMs ?? DEFAULT_PRESENCE_INTERVAL_MS;
    this.settleMs = o.settleMs ?? DEFAULT_PRESENCE_SETTLE_MS;
    this.link = new MqttLink({
      ...o,
      clientId: `edgetable-hub-presence-${this.instance}`,
      subscriptions: [o.topics.presenceSubscription],
      will: { topic: o.topics.presence(this.instance), payload: '', retain: true },
      onState: (online) => {
        if (!online) return;
        // The retained records come again with the subscription: forget what may have gone meanwhile.
        this.heard.clear();
        this.settledAt = Number.POSITIVE_INFINITY;
        this.announce();
      },
      onMessage: (topic, payload, retained) => this.onMessage(topic, payload, retained),
    });
    // From the start, not per connect: a broker that drops the hub at each presence publish must not hold it for ever.
    this.echoTimer = setTimeout(() => this.noEcho(), ECHO_TIMEOUT_MS);
    this.echoTimer.unref();
    this.heartbeat = setInterval(() => this.beat(), this.intervalMs);
    this.heartbeat.unref();
  }

  /** Whether the link to the broker is up (presence is only decided while it is). */
  get online(): boolean {
    return this.link.online;
  }

  self(): HubPresence {
    return {
      hubId: this.o.hubId,
      instance: this.instance,
      incarnation: this.o.incarnation,
      startedAt: this.startedAt,
      host: hostname(),
      pid: process.pid,
      ...(this.o.shareGroup !== undefined ? { shareGroup: this.o.shareGroup } : {}),
      mode: this.o.mode,
      role: this.role,
    };
  }

  status(): PresenceStatus {
    const d = this.decision;
    const others = this.live(Date.now()).sort((a, b) => a.startedAt - b.startedAt || (a.instance < b.instance ? -1 : 1));
    return {
      role: this.role,
      ...(d?.role === 'standby' ? { standbyReason: d.reason } : {}),
      ...(d?.role === 'active' && d.downReason !== undefined ? { downReason: d.downReason } : {}),
      ...(this.presenceError !== undefined ? { presenceError: this.presenceError } : {}),
      hubs: [{ ...this.self(), self: true }, ...others.map(({ refreshedAt: _r, intervalMs: _i, ...h }) => ({ ...h, self: false }))],
    };
  }

  /** Clears this hub's record on the broker (waits at most 1 s for it) and disconnects. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.settleTimer);
    clearTimeout(this.echoTimer);
    await Promise.race([this.link.publishAcknowledged(this.o.topics.presence(this.instance), '', true).catch(() => undefined), new Promise((r) => setTimeout(r, 1000))]);
    await this.link.close();
  }

  private announce(): void {
    if (this.stopped) return;
    const record: PresenceRecord = { ...this.self(), refreshedAt: Date.now(), intervalMs: this.intervalMs };
    this.link.publish(this.o.topics.presence(this.instance), encodePresence(record), true);
  }

  private onMessage(topic: string, payload: Buffer, retained: boolean): void {
    const t = this.o.topics.parse(topic);
    if (t.kind !== 'presence' || this.stopped) return;
    const now = Date.now();
    if (t.instance === this.instance) {
      if (payload.length === 0) return;
      clearTimeout(this.echoTimer);
      this.presenceError = undefined;
      if (this.settledAt === Number.POSITIVE_INFINITY) this.settleAfter(now);
      return;
    }
    if (payload.length === 0) {
      // Cleared by its stop() or its will: it was alive, so a latch it would have set holds. (Not
      // when this hub cleared it as expired: that record is out of `heard` already.)
      const d = this.decision;
      if (this.heard.has(t.instance) && d?.role === 'standby' && d.latched && d.blocker.instance === t.instance) this.latched = d;
      this.heard.delete(t.instance);
    } else {
      const record = decodePresence(payload);
      if (!record || record.instance !== t.instance) return;
      const known = this.heard.get(t.instance);
      this.heard.set(t.instance, { record, heardAt: now, refreshed: !retained || known?.refreshed === true });
      if (!known && !retained) this.announce(); // a new hub: it hears this one alive at once, not at the next heartbeat
    }
    this.decide(now);
  }

  private settleAfter(now: number): void {
    this.settledAt = now + this.settleMs;
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.decide(Date.now()), this.settleMs);
    this.settleTimer.unref();
  }

  /** Its own record did not come back: decide on what was heard rather than never consume. */
  private noEcho(): void {
    if (this.stopped || this.settledAt !== Number.POSITIVE_INFINITY || this.role !== 'starting') return;
    this.presenceError = `this hub's presence record on ${this.o.topics.presence(this.instance)} did not come back within ${ECHO_TIMEOUT_MS} ms: it cannot see other hubs on the namespace (does the broker's ACL let the hub read and write ${this.o.topics.presenceSubscription}?)`;
    log('hub').error({ instance: this.instance }, this.presenceError);
    this.settleAfter(Date.now());
  }

  private beat(): void {
    if (!this.link.online) return;
    const now = Date.now();
    for (const [instance, { record, heardAt }] of this.heard) {
      if (now - heardAt < LIVE_HEARTBEATS * record.intervalMs) continue;
      this.heard.delete(instance); // its hub and its will are both lost: clear what the broker kept
      this.link.publish(this.o.topics.presence(instance), '', true);
    }
    this.announce();
    this.decide(now);
    if (this.decision?.role === 'standby' && now - this.loggedStandbyAt >= STANDBY_LOG_EVERY_MS) this.sayStandby(this.decision.reason, now);
  }

  private live(now: number): PresenceRecord[] {
    return [...this.heard.values()].filter(({ record, heardAt }) => now - heardAt < LIVE_HEARTBEATS * record.intervalMs).map(({ record }) => record);
  }

  private decide(now: number): void {
    if (this.stopped || !this.link.online) return;
    const next = decideRole(this.self(), this.live(now), this.latched);
    if (next.role === 'standby') {
      // Latched only for a hub heard alive: a leftover retained record must not keep this hub out for good.
      if (next.latched && this.heard.get(next.blocker.instance)?.refreshed) this.latched = next;
      if (this.role !== 'standby' || this.decision?.role !== 'standby' || this.decision.reason !== next.reason) {
        this.role = 'standby';
        this.change(next);
        this.announce();
        this.sayStandby(next.reason, now);
      }
      return;
    }
    if (this.role === 'standby') {
      // The hub it stood by for is gone (same store): start again, so two standby hubs settle on one.
      this.role = 'starting';
      this.announce();
      this.settleAfter(now);
      return;
    }
    if (this.role === 'starting') {
      if (now < this.settledAt) return;
      this.role = 'active';
      this.announce();
      log('hub').info({ instance: this.instance }, `hub ${this.o.hubId} (instance ${this.instance}) consumes namespace ${this.o.topics.namespace}`);
    }
    const before = this.decision;
    if (before?.role !== 'active' || before.down !== next.down || before.downReason !== next.downReason) {
      if (next.downReason !== undefined) log('hub').error({ instance: this.instance }, next.downReason);
      this.change(next);
    }
  }

  private change(decision: RoleDecision): void {
    this.decision = decision;
    try {
      this.o.onDecision(decision);
    } catch (err) {
      log('hub').error({ err }, 'applying the hub role failed');
    }
  }

  private sayStandby(reason: string, now: number): void {
    this.loggedStandbyAt = now;
    log('hub').error({ instance: this.instance, namespace: this.o.topics.namespace }, `hub ${this.o.hubId} on namespace ${this.o.topics.namespace} is standby: ${reason}`);
  }
}
