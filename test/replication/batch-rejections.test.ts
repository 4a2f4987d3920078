/**
 * The writes of a device batch the hub refuses one by one (apply-batch.ts, batch-rejections.ts):
 * outside the device's write grants (UNAUTHORIZED) or stamped too far ahead of the hub's clock
 * (CLOCK_AHEAD). Neither is applied, both are kept in the dead-letter table and named in the ack's
 * rejections, the rest of the batch is applied, and a redelivery is told again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import type { KeyValue } from '../../src/model/attribute-value.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { applyBatch, type ApplyContext } from '../../src/replication/apply-batch.js';
import { DEAD_LETTER_TABLE, ensureDeadLetterTable } from '../../src/replication/dead-letters.js';
import { CLOCK_AHEAD, UNAUTHORIZED } from '../../src/replication/replica-types.js';
import { encodeChangeRecord } from '../../src/stream/change-record.js';
import { readStoreClock, type Hlc } from '../../src/stream/hlc.js';
import type { SyncBatch } from '../../src/sync/protocol/sync-batch.js';
import { createReadings, tableContents, tempDb, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

/** Grants of device dev-1: sensors s-1 and s-2 only. */
const onlyOwnSensors = (pk: KeyValue) => ('S' in pk && (pk.S === 's-1' || pk.S === 's-2') ? undefined : `device dev-1 may not write Readings partition key ${JSON.stringify('S' in pk ? pk.S : pk)}`);

function hub(): { db: Edgetable; ctx: (o?: Partial<ApplyContext>) => ApplyContext } {
  const { db } = tempDb(cleanups, 'etb-refuse-');
  createReadings(db, 'Readings', 1);
  const deadLetters = ensureDeadLetterTable(db.context);
  const syncDb = db.store.database(SYNC_DB);
  return { db, ctx: (o = {}) => ({ store: db.store, syncDb, table: db.context.catalog.require('Readings'), deadLetters, nowMs: NOW, maxDriftMs: HOUR, ...o }) };
}

function put(sensor: string, v: string, hlc: Hlc): Uint8Array {
  const keys = { sensor: { S: sensor }, ts: { N: '1' } };
  return encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, v: { S: v } }, timeMs: hlc.ms, hlc, sizeBytes: 20, ttl: false });
}

function batchOf(records: Uint8Array[], over: Partial<SyncBatch> = {}, firstSeq = 1): SyncBatch {
  return { deviceId: 'dev-1', incarnation: 'inc-1', table: 'Readings', tableId: 'tid-1', shard: 0, parent: undefined, records: records.map((bytes, i) => ({ seq: firstSeq + i, bytes })), ...over };
}

const values = (db: Edgetable) => tableContents(db, 'Readings').map((l) => (JSON.parse(l) as [string, { S?: string }][]).flatMap(([k, v]) => (k === 'sensor' || k === 'v' ? [v.S] : [])).join('='));
const letters = (db: Edgetable) => (db.scan({ TableName: DEAD_LETTER_TABLE }).Items as Record<string, { S?: string; N?: string }>[]).map((l) => [l.seq!.N, l.reason!.S]);

describe('applyBatch: writes outside the grants', () => {
  it('are not applied, kept with reason unauthorized, named without the hub item; the rest of the batch applies', () => {
    const { db, ctx } = hub();
    // s-9 already holds another device's item, which dev-1 may not see.
    applyBatch(ctx(), batchOf([put('s-9', 'theirs', { ms: NOW - 100, counter: 0 })], { deviceId: 'dev-9', incarnation: 'inc-9' }));
    const result = applyBatch(ctx({ authorize: onlyOwnSensors }), batchOf([put('s-1', 'mine', { ms: NOW - 10, counter: 0 }), put('s-9', 'injected', { ms: NOW + 30 * 60_000, counter: 0 }), put('s-8', 'new', { ms: NOW - 5, counter: 0 })]));
    expect(result).toMatchObject({ status: 'applied', applied: 1, unauthorized: 2, deadLettered: 2, clockRefused: 0, appliedSeq: 3 });
    expect(values(db)).toEqual(['s-1=mine', 's-9=theirs']);
    const reason9 = `${UNAUTHORIZED}device dev-1 may not write Readings partition key "s-9"`;
    expect(result.rejections).toEqual([
      { seq: 2, keys: { sensor: { S: 's-9' }, ts: { N: '1' } }, item: { sensor: { S: 's-9' }, ts: { N: '1' }, v: { S: 'injected' } }, reason: reason9 },
      expect.objectContaining({ seq: 3, reason: `${UNAUTHORIZED}device dev-1 may not write Readings partition key "s-8"` }),
    ]);
    expect(result.rejections.some((r) => r.hubItem !== undefined || r.hubVersion !== undefined)).toBe(false);
    expect(letters(db)).toEqual([
      ['2', reason9],
      ['3', `${UNAUTHORIZED}device dev-1 may not write Readings partition key "s-8"`],
    ]);
    // Its clock, 30 minutes ahead, is not merged either: a refused record moves nothing of the hub's.
    expect(db.store.read((txn) => readStoreClock(txn, db.store.database(SYNC_DB)))!.ms).toBeLessThan(NOW + 60_000);

    // Redelivered (its ack was lost): nothing new kept or applied, the same rejections told again.
    const again = applyBatch(ctx({ authorize: onlyOwnSensors }), batchOf([put('s-1', 'mine', { ms: NOW - 10, counter: 0 }), put('s-9', 'injected', { ms: NOW + 30 * 60_000, counter: 0 }), put('s-8', 'new', { ms: NOW - 5, counter: 0 })]));
    expect(again).toMatchObject({ applied: 0, duplicates: 3, deadLettered: 0, unauthorized: 0 });
    expect(again.rejections).toEqual(result.rejections);
  });

  it('a delete outside the grants deletes nothing', () => {
    const { db, ctx } = hub();
    applyBatch(ctx(), batchOf([put('s-9', 'theirs', { ms: NOW - 100, counter: 0 })], { deviceId: 'dev-9', incarnation: 'inc-9' }));
    const keys = { sensor: { S: 's-9' }, ts: { N: '1' } };
    const remove = encodeChangeRecord({ eventName: 'REMOVE', keys, timeMs: NOW - 1, hlc: { ms: NOW - 1, counter: 0 }, sizeBytes: 10, ttl: false });
    const result = applyBatch(ctx({ authorize: onlyOwnSensors }), batchOf([remove]));
    expect(result).toMatchObject({ applied: 0, unauthorized: 1, deadLettered: 1 });
    expect(result.rejections).toEqual([{ seq: 1, keys, reason: `${UNAUTHORIZED}device dev-1 may not write Readings partition key "s-9"` }]);
    expect(values(db)).toEqual(['s-9=theirs']);
  });

  it('a whole batch of a table outside the grants is refused by Replica.refuseHubBatch without a hub table', async () => {
    const { db } = hub();
    const batch = batchOf([put('s-1', 'a', { ms: NOW, counter: 0 }), put('s-2', 'b', { ms: NOW, counter: 0 })], { table: 'Secrets' });
    const reason = `${UNAUTHORIZED}device dev-1 may not write table Secrets`;
    expect(await db.replica.refuseHubBatch(batch, reason)).toMatchObject({ status: 'refused', reason, deadLettered: 2, appliedSeq: 2 });
    expect(db.context.catalog.find('Secrets')).toBeUndefined();
    expect((db.scan({ TableName: DEAD_LETTER_TABLE }).Items as Record<string, { S?: string }>[]).map((l) => [l.table!.S, l.reason!.S])).toEqual([
      ['Secrets', reason],
      ['Secrets', reason],
    ]);
    expect(await db.replica.refuseHubBatch(batch, reason)).toMatchObject({ status: 'refused', deadLettered: 0, duplicates: 2 });
  });
});

describe('applyBatch: a clock more than maxDriftMs ahead', () => {
  it('is refused, kept and named with the hub item and version; a later ordinary write of the key still wins', () => {
    const { db, ctx } = hub();
    applyBatch(ctx(), batchOf([put('s-1', 'before', { ms: NOW - 100, counter: 0 })], { deviceId: 'dev-2', incarnation: 'inc-2' }));
    const future = { ms: NOW + 10 * 24 * HOUR, counter: 0 };
    const result = applyBatch(ctx(), batchOf([put('s-1', 'from-the-future', future), put('s-2', 'on-time', { ms: NOW - 1, counter: 0 })]));
    const reason = `${CLOCK_AHEAD}the record's clock is ${10 * 24 * HOUR} ms ahead of the hub's, over maxClockDriftMs ${HOUR}`;
    expect(result).toMatchObject({ status: 'applied', applied: 1, clockRefused: 1, deadLettered: 1, unauthorized: 0 });
    expect(result.rejections).toEqual([
      {
        seq: 1,
        keys: { sensor: { S: 's-1' }, ts: { N: '1' } },
        item: { sensor: { S: 's-1' }, ts: { N: '1' }, v: { S: 'from-the-future' } },
        hubItem: { sensor: { S: 's-1' }, ts: { N: '1' }, v: { S: 'before' } },
        hubVersion: { hlc: { ms: NOW - 100, counter: 0 }, device: 'dev-2', incarnation: 'inc-2' },
        reason,
      },
    ]);
    expect(values(db)).toEqual(['s-1=before', 's-2=on-time']);
    expect(letters(db)).toEqual([['1', reason]]);
    expect(result.hubClock.ms).toBeLessThan(NOW + HOUR);
    // The bad clock wins nothing: the next ordinary write of the key is applied.
    expect(applyBatch(ctx({ nowMs: NOW + 1000 }), batchOf([put('s-1', 'after', { ms: NOW + 500, counter: 0 })], { deviceId: 'dev-2', incarnation: 'inc-2' }, 2))).toMatchObject({ applied: 1 });
    expect(values(db)).toEqual(['s-1=after', 's-2=on-time']);
    // Redelivered: told again, with the hub's item as it is now.
    const again = applyBatch(ctx(), batchOf([put('s-1', 'from-the-future', future), put('s-2', 'on-time', { ms: NOW - 1, counter: 0 })]));
    expect(again).toMatchObject({ applied: 0, duplicates: 2, clockRefused: 0 });
    expect(again.rejections).toEqual([expect.objectContaining({ seq: 1, reason, hubItem: { sensor: { S: 's-1' }, ts: { N: '1' }, v: { S: 'after' } } })]);
  });

  it('exactly maxDriftMs ahead is still applied', () => {
    const { db, ctx } = hub();
    expect(applyBatch(ctx(), batchOf([put('s-1', 'edge', { ms: NOW + HOUR, counter: 0 })]))).toMatchObject({ applied: 1, clockRefused: 0, rejections: [] });
    expect(values(db)).toEqual(['s-1=edge']);
  });
});
