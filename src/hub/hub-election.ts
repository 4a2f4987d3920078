/**
 * Which hub of a namespace consumes, from the presence records the hubs publish (hub-presence.ts).
 * Pure: the same records give every hub the same answer, so two hubs that see each other agree
 * on which of them stands by without talking further.
 *
 * The rule (docs/sync.md, "Several hubs on one namespace"):
 * - Hubs of one share group (`shareGroup` set and equal) run together: the broker splits the
 *   devices' batches among them. Any other pair (no group, or different groups) are rivals: only
 *   one of them may consume, because a device's down cursors and the writes it must receive live
 *   in the store of the hub that applied them.
 * - A hub that consumes ('active') keeps consuming against one that is 'starting', whatever their
 *   clocks say (a host whose clock is behind must not evict the running hub). Of two rivals in the
 *   same state (both starting together, both active after a healed partition), the one started
 *   first keeps consuming (older `startedAt`, then the smaller instance id); the other stands by.
 *   A standby hub is nobody's rival, and stays standby while any rival consumes or starts.
 * - A hub that stood by because of a rival with another store (incarnation) is latched: it stays
 *   standby until restarted, since taking over with another store would make every device sweep
 *   away what the other store held at its next base read (sync/sweep-base.ts).
 * - Down (two-way) subscriptions are served by exactly one hub of a group, the oldest, and only
 *   when every consuming hub of the group has the same incarnation (one store, several
 *   processes); otherwise the oldest refuses them, naming the stores.
 */

export type HubRole = 'starting' | 'active' | 'standby';

/** What a hub says of itself on its presence topic (hub-presence-record.ts encodes it). */
export type HubPresence = {
  readonly hubId: string;
  /** Random per start: two processes of one hub id, or one restarted, are different instances. */
  readonly instance: string;
  /** The hub store's incarnation: equal for processes on one folder. */
  readonly incarnation: string;
  readonly startedAt: number;
  readonly host: string;
  readonly pid: number;
  readonly shareGroup?: string;
  readonly mode: 'merged' | 'per-device';
  readonly role: HubRole;
};

/** 'serve': this hub answers down subscriptions; 'refuse': it answers each with a refusal; 'none': it does not listen to them. */
export type DownDuty = 'serve' | 'refuse' | 'none';

export type RoleDecision =
  | { readonly role: 'active'; readonly down: DownDuty; readonly downReason?: string }
  | { readonly role: 'standby'; readonly reason: string; readonly blocker: HubPresence; readonly latched: boolean };

/** Whether `a` started before `b` (ties broken by instance id, so exactly one of two precedes). */
export function precedes(a: HubPresence, b: HubPresence): boolean {
  return a.startedAt !== b.startedAt ? a.startedAt < b.startedAt : a.instance < b.instance;
}

/** Whether `a` keeps consuming against its rival `b`: the running one first, then the older. */
export function outranks(a: HubPresence, b: HubPresence): boolean {
  if (a.role === 'active' && b.role === 'starting') return true;
  if (a.role === 'starting' && b.role === 'active') return false;
  return precedes(a, b);
}

/** Whether two hubs may consume together: the same share group. */
export function sameShareGroup(a: HubPresence, b: HubPresence): boolean {
  return a.shareGroup !== undefined && a.shareGroup === b.shareGroup;
}

/** `hub 'hub' (instance 3f2a..., pid 4711 on pi-7, started 2026-12-06T23:01:02.000Z, store incarnation 9c1e...)` */
export function describeHub(h: HubPresence): string {
  return `hub '${h.hubId}' (instance ${h.instance}, pid ${h.pid} on ${h.host}, started ${new Date(h.startedAt).toISOString()}, store incarnation ${h.incarnation}${h.shareGroup !== undefined ? `, share group ${h.shareGroup}` : ''})`;
}

/**
 * The role of `self` among the live hubs `others` (self excluded). `latched`: self already stood
 * by for a hub with another store; it is kept standby with that decision.
 */
export function decideRole(self: HubPresence, others: readonly HubPresence[], latched?: RoleDecision & { role: 'standby' }): RoleDecision {
  if (latched) return latched;
  const contenders = others.filter((o) => o.role !== 'standby');
  const blocker = contenders.filter((o) => !sameShareGroup(self, o) && (self.role === 'standby' || outranks(o, self))).sort((a, b) => (outranks(a, b) ? -1 : 1))[0];
  if (blocker) {
    const otherStore = blocker.incarnation !== self.incarnation;
    const reason =
      `another hub consumes this namespace: ${describeHub(blocker)}; this hub stands by and applies nothing` +
      (otherStore
        ? '. Its store is not this one (another incarnation), so this hub will not take over when it goes: devices would sweep away what that store holds at their next base read. Stop one of the two, or give them one share group with one store'
        : '. It serves the same store: this hub takes over when it goes');
    return { role: 'standby', reason, blocker, latched: otherStore };
  }
  if (self.shareGroup === undefined) return { role: 'active', down: 'serve' };
  const group = [self, ...contenders.filter((o) => sameShareGroup(self, o))];
  const oldest = group.reduce((a, b) => (precedes(a, b) ? a : b));
  const stores = [...new Set(group.map((h) => h.incarnation))].sort();
  if (stores.length > 1) {
    const downReason = `the hubs of share group ${self.shareGroup} serve different stores (incarnations ${stores.join(', ')}): no hub of the group serves two-way (down) subscriptions; run the group's hubs on one store`;
    return { role: 'active', down: oldest === self ? 'refuse' : 'none', downReason };
  }
  return { role: 'active', down: oldest === self ? 'serve' : 'none' };
}
