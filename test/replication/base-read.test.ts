/**
 * The engine side of a first sync's base read (src/replication/base-read.ts): what enabling sync
 * records, the pages after the durable cursor, page numbers per session, and what racing writes,
 * a partition split and a re-created table do to it. No broker: the hub's ack is commitBasePage.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { BASE_PAGE_STRIDE } from '../../src/replication/base-read-state.js';
import { beginBaseSession, commitBasePage, enableSyncWithBase, readBasePage, readBaseProgress, type BasePage } from '../../src/replication/base-read.js';
import { decodeStreamRecord, type ChangeRecord } from '../../src/stream/change-record.js';
import { compareHlc } from '../../src/stream/hlc.js';
import { listShardIds } from '../../src/stream/shard-state.js';
import { readShardRaw } from '../../src/stream/stream-reader.js';
import type { Table } from '../../src/table/table.js';
import { createReadings, tableContents, tempDb, writeReadings, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const SETTINGS = { outboxBudgetBytes: 0, whenFull: 'reject' as const, retentionMs: 0 };

function readings(db: Edgetable): Table {
  return db.context.catalog.require('Readings');
}

function keyOf(r: ChangeRecord): string {
  return `${(r.keys['sensor'] as { S: string }).S}/${(r.keys['ts'] as { N: string }).N}`;
}

function changes(page: BasePage): ChangeRecord[] {
  return page.records.map((r) => decodeStreamRecord(r.bytes) as ChangeRecord);
}

/** Reads and acknowledges pages until the base read is done; returns every record sent. */
async function drain(db: Edgetable, pageSize: number): Promise<ChangeRecord[]> {
  const sent: ChangeRecord[] = [];
  for (;;) {
    const page = readBasePage(db.store, readings(db), pageSize, Infinity);
    if (!page) return sent;
    sent.push(...changes(page));
    await commitBasePage(db.store, (plan) => db.promises.commitTxn(plan), readings(db), page);
  }
}

function itemKeys(db: Edgetable): string[] {
  return tableContents(db, 'Readings').map((line) => {
    const item = Object.fromEntries(JSON.parse(line) as [string, Record<string, string>][]);
    return `${item['sensor']!['S']}/${item['ts']!['N']}`;
  });
}

function setup(items: number): Edgetable {
  const { db } = tempDb(cleanups, 'etb-base-');
  createReadings(db);
  writeReadings(db, 0, items);
  return db;
}

describe('base read (engine side)', () => {
  it('enabling sync on a table that holds items records a base read and logs nothing; an empty table gets none', () => {
    const db = setup(1000);
    expect(enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1')).toBe(1000);
    expect(readBaseProgress(db.store, readings(db))).toMatchObject({ total: 1000, acked: 0, tableId: readings(db).def.TableId, incarnation: 'inc-1' });
    expect(db.store.read((txn) => listShardIds(txn, readings(db).meta))).toEqual([]);
    // A second enable only updates the settings.
    expect(enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1')).toBe(0);

    const other = tempDb(cleanups, 'etb-base-').db;
    createReadings(other);
    expect(enableSyncWithBase(other.store, readings(other), SETTINGS, 'inc-2')).toBe(0);
    expect(readBaseProgress(other.store, readings(other))).toBeUndefined();
  });

  it('pages cover every item exactly once, under sequences of their page number, with the enable clock', async () => {
    const db = setup(1000);
    enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1');
    const state = readBaseProgress(db.store, readings(db))!;
    const first = readBasePage(db.store, readings(db), 70, Infinity)!;
    expect(first.records.map((r) => r.seq)).toEqual(Array.from({ length: 70 }, (_, i) => state.page * BASE_PAGE_STRIDE + i + 1));
    const sent = await drain(db, 70);
    expect(sent.map(keyOf).sort()).toEqual(itemKeys(db).sort());
    expect(new Set(sent.map(keyOf)).size).toBe(1000);
    for (const r of sent) expect(r).toMatchObject({ eventName: 'INSERT', hlc: state.hlc });
    expect(readBaseProgress(db.store, readings(db))).toMatchObject({ acked: 1000, doneHlc: expect.any(Object) });
    expect(readBasePage(db.store, readings(db), 70, Infinity)).toBeUndefined();
  });

  it('a page not acknowledged is read again after the cursor; a new session gives it other sequences and a late ack of the old one moves nothing', async () => {
    const db = setup(500);
    enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1');
    await commitBasePage(db.store, (plan) => db.promises.commitTxn(plan), readings(db), readBasePage(db.store, readings(db), 50, Infinity)!);
    const lost = readBasePage(db.store, readings(db), 50, Infinity)!; // sent, its ack never recorded
    await beginBaseSession((plan) => db.promises.commitTxn(plan), readings(db)); // the agent restarted
    const again = readBasePage(db.store, readings(db), 50, Infinity)!;
    expect(changes(again).map(keyOf)).toEqual(changes(lost).map(keyOf));
    expect(again.page).toBe(lost.page + 1);
    expect(Math.min(...again.records.map((r) => r.seq))).toBeGreaterThan(Math.max(...lost.records.map((r) => r.seq)));
    await commitBasePage(db.store, (plan) => db.promises.commitTxn(plan), readings(db), lost);
    expect(readBaseProgress(db.store, readings(db))!.acked).toBe(50);
    await commitBasePage(db.store, (plan) => db.promises.commitTxn(plan), readings(db), again);
    expect(readBaseProgress(db.store, readings(db))!.acked).toBe(100);
  });

  it('writes racing the read: a key deleted ahead of the cursor is not sent, and every logged write is newer than the base records', async () => {
    const db = setup(600);
    enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1');
    const state = readBaseProgress(db.store, readings(db))!;
    const page = readBasePage(db.store, readings(db), 100, Infinity)!;
    await commitBasePage(db.store, (plan) => db.promises.commitTxn(plan), readings(db), page);
    const early = new Set(changes(page).map(keyOf));
    const ahead = itemKeys(db).filter((k) => !early.has(k));
    const [gone, changed] = ahead.map((k) => k.split('/') as [string, string]);
    db.deleteItem({ TableName: 'Readings', Key: { sensor: { S: gone![0] }, ts: { N: gone![1] } } });
    db.putItem({ TableName: 'Readings', Item: { sensor: { S: changed![0] }, ts: { N: changed![1] }, v: { N: '-1' } } });
    const rest = await drain(db, 100);
    expect(rest.map(keyOf)).not.toContain(gone!.join('/'));
    expect(rest.find((r) => keyOf(r) === changed!.join('/'))!.newImage!['v']).toEqual({ N: '-1' });
    const logged = listShardsRecords(db);
    expect(logged).toHaveLength(2);
    for (const r of logged) expect(compareHlc(r.hlc, state.hlc)).toBeGreaterThan(0);
  });

  it('a partition split in the middle of the read skips no item', async () => {
    const db = setup(1200);
    enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1');
    const sent: ChangeRecord[] = [];
    for (let i = 0; i < 3; i++) {
      const page = readBasePage(db.store, readings(db), 100, Infinity)!;
      sent.push(...changes(page));
      await commitBasePage(db.store, (plan) => db.promises.commitTxn(plan), readings(db), page);
    }
    const cursor = readBaseProgress(db.store, readings(db))!.cursor;
    const holder = readings(db).partitions.find((p) => p.range.start <= cursor.start && cursor.start < p.range.end)!;
    expect(db.splitPartition('Readings', holder.range.id)).toBeDefined();
    sent.push(...(await drain(db, 100)));
    expect([...new Set(sent.map(keyOf))].sort()).toEqual(itemKeys(db).sort());
  });

  it('is done once per TableId: a re-created table holding items reads its base again', async () => {
    const db = setup(300);
    enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1');
    await drain(db, 100);
    expect(enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1')).toBe(0);
    db.deleteTable({ TableName: 'Readings' });
    createReadings(db);
    writeReadings(db, 0, 40);
    expect(enableSyncWithBase(db.store, readings(db), SETTINGS, 'inc-1')).toBe(40);
    expect((await drain(db, 100)).length).toBe(40);
  });
});

function listShardsRecords(db: Edgetable): ChangeRecord[] {
  const table = readings(db);
  const shards = db.store.read((txn) => listShardIds(txn, table.meta));
  return shards.flatMap((shard) => readShardRaw(db.store, table.name, shard, 1, 1000).map((r) => decodeStreamRecord(r.bytes) as ChangeRecord));
}
