/**
 * applyBatch under a version rule (src/replication/apply-batch.ts with replication/version-check.ts): refused
 * writes are not applied, are kept as dead letters, and are returned for the ack; a redelivered
 * batch (its ack lost) reports them again, so the device always learns of them; records are
 * checked in sequence order, each against what the previous ones left.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { SYNC_DB } from '../../src/partition/database-names.js';
import { applyBatch, type ApplyContext } from '../../src/replication/apply-batch.js';
import { DEAD_LETTER_TABLE, ensureDeadLetterTable } from '../../src/replication/dead-letters.js';
import type { Item } from '../../src/model/attribute-value.js';
import { encodeChangeRecord } from '../../src/stream/change-record.js';
import type { SyncBatch } from '../../src/sync/protocol/sync-batch.js';
import { tempDb, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const NOW = 1_800_000_000_000;
const keys = { id: { S: 'job-1' } };
const job = (version: number, status: string): Item => ({ ...keys, version: { N: String(version) }, status: { S: status } });

function hub(): { db: Edgetable; ctx: ApplyContext } {
  const { db } = tempDb(cleanups, 'etb-apply-version-');
  db.createTable({ TableName: 'WorkOrders', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
  const ctx = { store: db.store, syncDb: db.store.database(SYNC_DB), table: db.context.catalog.require('WorkOrders'), deadLetters: ensureDeadLetterTable(db.context), nowMs: NOW, maxDriftMs: 3_600_000, conflict: { strategy: 'version', attribute: 'version' } as const };
  return { db, ctx };
}

let clock = 0;
function put(item: Item, base?: Item): Uint8Array {
  clock += 1;
  return encodeChangeRecord({ eventName: base ? 'MODIFY' : 'INSERT', keys, newImage: item, ...(base ? { oldImage: base } : {}), timeMs: NOW, hlc: { ms: NOW - 1000, counter: clock }, sizeBytes: 10, ttl: false });
}

function batch(device: string, records: Uint8Array[], firstSeq = 1): SyncBatch {
  return { deviceId: device, incarnation: 'inc', table: 'WorkOrders', tableId: 'tid', shard: 0, parent: undefined, records: records.map((bytes, i) => ({ seq: firstSeq + i, bytes })) };
}

const current = (db: Edgetable) => db.getItem({ TableName: 'WorkOrders', Key: keys }).Item;

describe('applyBatch with a version rule', () => {
  it('applies a chain of versions in one batch, refuses the stale write of another device, and keeps it as a dead letter', () => {
    const { db, ctx } = hub();
    const a = applyBatch(ctx, batch('dev-a', [put(job(1, 'open')), put(job(2, 'started'), job(1, 'open'))]));
    expect(a).toMatchObject({ status: 'applied', applied: 2, versionConflicts: 0, rejections: [] });
    // dev-b's write is later by its clock, but made on version 1.
    const b = applyBatch(ctx, batch('dev-b', [put(job(1, 'open')), put(job(2, 'cancelled'), job(1, 'open'))]));
    expect(b).toMatchObject({ status: 'applied', applied: 0, versionConflicts: 2, deadLettered: 2, appliedSeq: 2 });
    expect(b.rejections.map((r) => [r.seq, r.reason])).toEqual([
      [1, "version 1 is not the hub's version 2 + 1"],
      [2, "version 2 is not the hub's version 2 + 1"],
    ]);
    expect(b.rejections[1]).toMatchObject({ keys, item: job(2, 'cancelled'), hubItem: job(2, 'started') });
    expect(current(db)).toEqual(job(2, 'started'));
    expect((db.scan({ TableName: DEAD_LETTER_TABLE }).Items ?? []).map((l) => [(l.device as { S: string }).S, (l.seq as { N: string }).N])).toEqual([
      ['dev-b', '1'],
      ['dev-b', '2'],
    ]);
  });

  it('a redelivered batch (its ack lost) reports the same refusals again, with the hub item as it is now, and applies nothing', () => {
    const { db, ctx } = hub();
    const open = put(job(1, 'open'));
    applyBatch(ctx, batch('dev-a', [open]));
    const stale = batch('dev-b', [put(job(1, 'mine'))]);
    const first = applyBatch(ctx, stale);
    // The hub item's version record travels with the refusal (the device takes it with the item).
    expect(first.rejections).toEqual([{ seq: 1, keys, item: job(1, 'mine'), hubItem: job(1, 'open'), reason: "version 1 is not the hub's version 1 + 1", hubVersion: { hlc: { ms: NOW - 1000, counter: clock - 1 }, device: 'dev-a', incarnation: 'inc' } }]);
    applyBatch(ctx, batch('dev-a', [put(job(2, 'done'), job(1, 'open'))], 2));
    const again = applyBatch(ctx, stale);
    expect(again).toMatchObject({ applied: 0, duplicates: 1, versionConflicts: 0 });
    expect(again.rejections).toEqual([{ seq: 1, keys, item: job(1, 'mine'), hubItem: job(2, 'done'), reason: "version 1 is not the hub's version 1 + 1", hubVersion: { hlc: { ms: NOW - 1000, counter: clock }, device: 'dev-a', incarnation: 'inc' } }]);
    expect(current(db)).toEqual(job(2, 'done'));
  });

  it('without a rule the same batches resolve last-writer-wins and refuse nothing', () => {
    const { db, ctx } = hub();
    const { conflict: _rule, ...lww } = ctx;
    applyBatch(lww, batch('dev-a', [put(job(1, 'open')), put(job(2, 'started'), job(1, 'open'))]));
    const b = applyBatch(lww, batch('dev-b', [put(job(2, 'cancelled'), job(1, 'open'))]));
    expect(b).toMatchObject({ applied: 1, versionConflicts: 0, rejections: [] });
    expect(current(db)).toEqual(job(2, 'cancelled'));
  });
});
