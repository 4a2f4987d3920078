/** The rule that keeps one consuming hub per namespace (src/hub/hub-election.ts), as a table of cases. */
import { describe, expect, it } from 'vitest';
import { decideRole, precedes, type HubPresence, type RoleDecision } from '../../src/hub/hub-election.js';

const hub = (instance: string, startedAt: number, fields: Partial<HubPresence> = {}): HubPresence => ({
  hubId: 'hub', instance, incarnation: 'store-1', startedAt, host: 'pi', pid: 100, mode: 'merged', role: 'active', ...fields,
});

const summary = (d: RoleDecision): string => (d.role === 'standby' ? `standby for ${d.blocker.instance}${d.latched ? ' (latched)' : ''}` : `active, down ${d.down}`);

describe('decideRole', () => {
  const cases: { name: string; self: HubPresence; others: HubPresence[]; expected: string }[] = [
    { name: 'alone', self: hub('b', 20), others: [], expected: 'active, down serve' },
    { name: 'an older active hub on another store', self: hub('b', 20), others: [hub('a', 10, { incarnation: 'store-2' })], expected: 'standby for a (latched)' },
    { name: 'an older active hub on the same store', self: hub('b', 20), others: [hub('a', 10)], expected: 'standby for a' },
    { name: 'an older hub that is starting counts as consuming', self: hub('b', 20, { role: 'starting' }), others: [hub('a', 10, { role: 'starting' })], expected: 'standby for a' },
    { name: 'a running hub keeps consuming when a hub whose clock is behind starts', self: hub('a', 20), others: [hub('b', 10, { role: 'starting', incarnation: 'store-2' })], expected: 'active, down serve' },
    { name: 'a starting hub stands by for a running one, even one its clock calls younger', self: hub('b', 10, { role: 'starting' }), others: [hub('a', 20)], expected: 'standby for a' },
    { name: 'a standby hub stays standby while a younger rival consumes', self: hub('a', 10, { role: 'standby' }), others: [hub('b', 20)], expected: 'standby for b' },
    { name: 'a standby hub with no rival left may start again', self: hub('a', 10, { role: 'standby' }), others: [hub('c', 5, { role: 'standby' })], expected: 'active, down serve' },
    { name: 'a younger active hub: it stands by, not this one', self: hub('a', 10), others: [hub('b', 20, { incarnation: 'store-2' })], expected: 'active, down serve' },
    { name: 'an older standby hub is nobody\'s rival', self: hub('b', 20), others: [hub('a', 10, { role: 'standby', incarnation: 'store-2' })], expected: 'active, down serve' },
    { name: 'same start time: the smaller instance id wins', self: hub('b', 10, { role: 'starting' }), others: [hub('a', 10, { role: 'starting' })], expected: 'standby for a' },
    { name: 'same start time, this one has the smaller id', self: hub('a', 10, { role: 'starting' }), others: [hub('b', 10, { role: 'starting' })], expected: 'active, down serve' },
    { name: 'two active hubs meeting (a healed partition): the older keeps consuming', self: hub('b', 20), others: [hub('a', 10)], expected: 'standby for a' },
    { name: 'several rivals: the oldest one is named', self: hub('c', 30), others: [hub('b', 20), hub('a', 10)], expected: 'standby for a' },
    { name: 'a group hub against an ungrouped older hub', self: hub('b', 20, { shareGroup: 'g' }), others: [hub('a', 10)], expected: 'standby for a' },
    { name: 'hubs of different groups are rivals', self: hub('b', 20, { shareGroup: 'g' }), others: [hub('a', 10, { shareGroup: 'h' })], expected: 'standby for a' },
    { name: 'one group, one store: the oldest serves down', self: hub('a', 10, { shareGroup: 'g' }), others: [hub('b', 20, { shareGroup: 'g' })], expected: 'active, down serve' },
    { name: 'one group, one store: the others do not', self: hub('b', 20, { shareGroup: 'g' }), others: [hub('a', 10, { shareGroup: 'g' })], expected: 'active, down none' },
    { name: 'one group, two stores: the oldest refuses down', self: hub('a', 10, { shareGroup: 'g' }), others: [hub('b', 20, { shareGroup: 'g', incarnation: 'store-2' })], expected: 'active, down refuse' },
    { name: 'one group, two stores: the others stay out of down', self: hub('b', 20, { shareGroup: 'g', incarnation: 'store-2' }), others: [hub('a', 10, { shareGroup: 'g' })], expected: 'active, down none' },
    { name: 'a standby group member does not count as a store of the group', self: hub('a', 10, { shareGroup: 'g' }), others: [hub('b', 20, { shareGroup: 'g', incarnation: 'store-2', role: 'standby' })], expected: 'active, down serve' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(summary(decideRole(c.self, c.others))).toBe(c.expected);
    });
  }

  it('two hubs judging each other agree: exactly one stays active, whatever their ids and times', () => {
    const roles = ['starting', 'active'] as const;
    for (const [ta, tb] of [[10, 20], [20, 10], [10, 10]] as const) {
      for (const ra of roles) {
        for (const rb of roles) {
          const a = hub('a', ta, { role: ra, incarnation: 'store-1' });
          const b = hub('b', tb, { role: rb, incarnation: 'store-2' });
          expect([decideRole(a, [b]).role, decideRole(b, [a]).role].sort()).toEqual(['active', 'standby']);
          expect(precedes(a, b)).toBe(!precedes(b, a));
        }
      }
    }
  });

  it('a latched standby stays standby when its rival is gone; the reason says why', () => {
    const first = decideRole(hub('b', 20), [hub('a', 10, { incarnation: 'store-2', host: 'gw-1', pid: 4711 })]);
    expect(first.role).toBe('standby');
    if (first.role !== 'standby') return;
    expect(first.reason).toContain("hub 'hub' (instance a, pid 4711 on gw-1, started 1970-01-01T00:00:00.010Z, store incarnation store-2)");
    expect(first.reason).toContain('will not take over');
    expect(decideRole(hub('b', 20), [], first)).toBe(first);
    const sameStore = decideRole(hub('b', 20), [hub('a', 10)]);
    expect(sameStore.role === 'standby' && sameStore.reason).toContain('takes over when it goes');
  });

  it('the down refusal names the group and its stores', () => {
    const d = decideRole(hub('a', 10, { shareGroup: 'g' }), [hub('b', 20, { shareGroup: 'g', incarnation: 'store-2' })]);
    expect(d.role === 'active' && d.downReason).toBe('the hubs of share group g serve different stores (incarnations store-1, store-2): no hub of the group serves two-way (down) subscriptions; run the group\'s hubs on one store');
  });
});
