/**
 * Several processes on one folder (issue 12.5): two processes write synchronously and a third
 * through db.promises (its groups commit on a worker thread, conditional on no other process
 * having committed since they were computed) while a fourth splits partitions, adds and deletes a
 * GSI and turns TTL on and off. Afterwards every acknowledged write
 * is in the table, every index equals its recomputation, and no item is left in a partition that
 * is no longer in the table's map.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { partitionKeyEnd, placedKey } from '../../src/codec/item-key.js';
import { partitionDb } from '../../src/partition/database-names.js';
import { forkWorker } from './harness/bundle-worker.js';
import { scanAll, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();
const worker = join(dirname(fileURLToPath(import.meta.url)), 'harness', 'shared-folder-worker.ts');
const DURATION_MS = Number(process.env.EDGETABLE_SHARED_FOLDER_MS ?? 6_000);

/**
 * Where the acknowledged write `ack` is in the store's raw databases (for a failure message): every
 * database of the table holding a key with its sort key (partition-id) or its key (hash-first),
 * the partition map, and the id its partition key has.
 */
function whereIs(db: Edgetable, ack: string, sorted: boolean): string {
  const table = db.context.catalog.require('Shared');
  const [pk, sk] = ack.split('#');
  const key = table.keyOf(sorted ? { pk: { S: pk! }, sk: { N: sk! } } : { pk: { S: pk! } });
  const pkEnd = partitionKeyEnd(key, 'S');
  const tail = sorted ? Buffer.from(placedKey(0, key, pkEnd)).subarray(4) : Buffer.from(key.bytes);
  return db.store.read((txn) => {
    const found: string[] = [];
    for (const name of db.store.listDatabases('t/Shared/')) {
      for (const { key: stored } of txn.cursor(db.store.database(name))) {
        const bytes = Buffer.from(stored);
        if ((sorted ? bytes.subarray(4) : bytes).equals(tail)) found.push(sorted ? `${name} under id ${bytes.readUInt32BE(0)}` : name);
      }
    }
    const id = sorted ? table.ids!.idOf(txn, key.hash, key.bytes, 4, pkEnd) : undefined;
    return `${ack} (hash ${key.hash}${sorted ? `, id ${id}` : ''}) is in ${found.join(', ') || 'no database'}; partitions ${JSON.stringify(table.def.partitions)}`;
  });
}

type Message = { t: string; keys?: string[]; detail?: string; splits?: number; alters?: number; writes?: number; conflicts?: number; onThisThread?: number };

// A table keyed by partition key only (table format 1, hash-first keys), and one with a sort key
// (format 3), whose partition keys every process writes, so they race to give them their ids.
// 'log': every process opens with durability 'log'; one logs until the next registers, and they
// commit durably through LMDB while several are open (redo-handover.ts).
describe.each([
  { layout: 'hash-first', sorted: false, durability: 'sync/relaxed' },
  { layout: 'partition-id', sorted: true, durability: 'sync/relaxed' },
  { layout: 'partition-id', sorted: true, durability: 'log' },
])('several processes on one folder, $layout, $durability', ({ sorted, durability }) => {
  it('keeps every acknowledged write and every index right while another process splits and alters the table', async () => {
    const path = join(dbs.dir(), 'db');
    const setup = open({ path, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
    setup.createTable({
      TableName: 'Shared',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: sorted ? [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }] : [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: sorted ? [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }] : [{ AttributeName: 'pk', AttributeType: 'S' }],
    });
    setup.close();
    const env = { SHARED_FOLDER_SORT_KEY: sorted ? '1' : '0', SHARED_FOLDER_DURABILITY: durability };

    const acked = new Set<string>();
    const reports: Message[] = [];
    const children = [
      forkWorker(worker, ['writer', path, String(DURATION_MS), '1'], env),
      forkWorker(worker, ['writer', path, String(DURATION_MS), '2'], env),
      forkWorker(worker, ['alterer', path, String(DURATION_MS), '3'], env),
      forkWorker(worker, ['promises-writer', path, String(DURATION_MS), '4'], env),
    ];
    await Promise.all(children.map((c) => new Promise<void>((ready) => {
      c.proc.on('message', (m: Message) => {
        if (m.t === 'ready') ready();
        else if (m.t === 'acks') for (const k of m.keys!) acked.add(k);
        else reports.push(m);
      });
    })));
    for (const c of children) c.proc.send({ t: 'go' });
    const codes = await Promise.all(children.map((c) => c.exited));
    const errors = reports.filter((r) => r.t === 'error').map((r) => r.detail);
    expect(errors, children.map((c) => c.output()).join('\n')).toEqual([]);
    expect(codes).toEqual([0, 0, 0, 0]);
    const alterer = reports.find((r) => r.t === 'done' && r.splits !== undefined)!;
    const promised = reports.find((r) => r.t === 'done' && r.conflicts !== undefined)!;
    console.log(`shared folder: ${acked.size} acknowledged writes, ${alterer.splits} splits, ${alterer.alters} catalog changes in ${DURATION_MS} ms; db.promises: ${promised.writes} writes, ${promised.conflicts} replays met another process's commit, ${promised.onThisThread} groups committed on the main thread`);
    expect([...acked].some((k) => (sorted ? k.split('#')[1]!.startsWith('4') : k.startsWith('w4-')))).toBe(true);
    expect(alterer.splits).toBeGreaterThan(2);
    expect(alterer.alters).toBeGreaterThan(2);

    const db = dbs.open({ path, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
    await db.whenIndexesActive();
    const stored = new Set(scanAll(db, { TableName: 'Shared', ProjectionExpression: sorted ? 'pk, sk' : 'pk' }).map((item) => (sorted ? `${(item.pk as { S: string }).S}#${(item.sk as { N: string }).N}` : (item.pk as { S: string }).S)));
    const lost = [...acked].filter((k) => !stored.has(k));
    const vanished = reports.filter((r) => r.t === 'vanished').map((r) => r.detail);
    expect(lost.length, `lost: ${lost.slice(0, 10).join(', ')}; seen going: ${vanished.join('; ') || 'none'}; ${lost.slice(0, 3).map((k) => whereIs(db, k, sorted)).join('; ')}`).toBe(0);
    expect(vanished).toEqual([]);
    expect(db.verify('Shared').Differences).toBe(0);

    const table = db.context.catalog.require('Shared');
    const live = new Set(table.partitions.map((p) => partitionDb('Shared', p.range.id)));
    const strays = db.store.listDatabases('t/Shared/p/').filter((name) => !name.includes('/lsi/') && !live.has(name));
    expect(strays).toEqual([]);
    const description = db.describeTable({ TableName: 'Shared' }).Table as { ItemCount: number };
    expect(description.ItemCount).toBe(stored.size);
    if (sorted) {
      // One id per partition key, dense, each item under its own partition key's id.
      const partitionKeys = new Set([...stored].map((k) => k.split('#')[0]!));
      expect(db.store.read((txn) => table.ids!.count(txn))).toBe(partitionKeys.size);
      for (const pk of partitionKeys) {
        const page = db.query({ TableName: 'Shared', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: pk } }, Select: 'COUNT' }) as { Count: number };
        expect(page.Count).toBe([...stored].filter((k) => k.startsWith(`${pk}#`)).length);
      }
    }
  }, 120_000);
});
