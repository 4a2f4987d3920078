/**
 * `edgetable stats` and `edgetable doctor` run in-process on a store written and closed first
 * (as a separate process would see it), plus diagnose() on a live engine for the usage checks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { main } from '../../src/cli/main.js';
import { diagnose } from '../../src/cli/commands/doctor.js';
import type { CliIo } from '../../src/cli/cli-io.js';

const dirs: string[] = [];
const dbs: Edgetable[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) if (!db.store.closed) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store(): { path: string; db: Edgetable } {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-doctor-'));
  dirs.push(dir);
  const db = open({ path: join(dir, 'db'), durability: 'relaxed', ttlSweepIntervalMs: 0 });
  dbs.push(db);
  return { path: join(dir, 'db'), db };
}

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), errIsTty: false };
  const code = await main(argv, io);
  return { code, out, err };
}

function table(db: Edgetable, name: string, pk: string, extra: Record<string, unknown> = {}): void {
  db.createTable({
    TableName: name,
    KeySchema: [{ AttributeName: pk, KeyType: 'HASH' }, { AttributeName: 'id', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: pk, AttributeType: 'S' }, { AttributeName: 'id', AttributeType: 'N' }],
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 4,
    ...extra,
  });
}

function fill(db: Edgetable, name: string, pk: string, value: (i: number) => string, count = 200): void {
  for (let i = 0; i < count; i += 25) {
    db.batchWriteItem({ RequestItems: { [name]: Array.from({ length: 25 }, (_, j) => ({ PutRequest: { Item: { [pk]: { S: value(i + j) }, id: { N: String(i + j) }, v: { S: 'x'.repeat(50) } } } })) } });
  }
}

describe('edgetable doctor', () => {
  it('flags a table keyed by a two-valued attribute, with its figures', async () => {
    const { path, db } = store();
    table(db, 'Answers', 'answer');
    fill(db, 'Answers', 'answer', (i) => (i % 3 === 0 ? 'Yes' : 'No'));
    db.close();
    const r = await run(['doctor', '--path', path]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `WARN Answers [partition-key]: partition key 'answer' has 2 distinct values in 200 items ["No" (133), "Yes" (67)]: requests for one value all go to one partition, so the table serves at most 6000 RCU / 2000 WCU`,
    );
  });

  it('flags the seeds\' "Language" key too (five values)', () => {
    const { db } = store();
    table(db, 'Docs', 'language');
    fill(db, 'Docs', 'language', (i) => ['en', 'de', 'fr', 'es', 'it'][i % 5]!);
    expect(diagnose(db).filter((f) => f.check === 'partition-key').map((f) => f.table)).toEqual(['Docs']);
  });

  it('stays quiet on a well-keyed table', async () => {
    const { path, db } = store();
    table(db, 'Readings', 'sensor');
    fill(db, 'Readings', 'sensor', (i) => `sensor-${i}`);
    db.close();
    const r = await run(['doctor', '--path', path]);
    expect(r).toEqual({ code: 0, out: 'no problems found\n', err: '' });
  });

  it('samples a large table across the hash space: many long item collections are not skew', async () => {
    const { path, db } = store();
    table(db, 'Sensors', 'sensor');
    // 12 sensors x 200 readings: in key order the first 1,000 items hold only 5 sensors.
    fill(db, 'Sensors', 'sensor', (i) => `sensor-${Math.floor(i / 200)}`, 2400);
    table(db, 'Votes', 'answer');
    fill(db, 'Votes', 'answer', (i) => (i % 2 === 0 ? 'Yes' : 'No'), 2400);
    db.close();
    const r = await run(['doctor', '--json', '--path', path]);
    const findings = JSON.parse(r.out) as { table: string; check: string; message: string }[];
    expect(findings.filter((f) => f.check === 'partition-key').map((f) => f.table)).toEqual(['Votes']);
    expect(findings.find((f) => f.table === 'Votes')!.message).toMatch(/^partition key 'answer' has 2 distinct values at 1000 points across the hash space of 2400 items \["(Yes|No)", "(Yes|No)"\]: /);
  });

  it('flags provisioned throughput that the partitions cannot serve', () => {
    const { db } = store();
    table(db, 'Big', 'sensor', { BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 100, WriteCapacityUnits: 2500 }, PartitionCount: 2 });
    expect(diagnose(db)).toEqual([
      { table: 'Big', check: 'throughput-cap', message: 'provisioned 100 RCU / 2500 WCU over 2 partitions of at most 3000 RCU / 1000 WCU each: at most 6000 RCU / 2000 WCU can be used' },
    ]);
  });

  it('flags a hot partition from the usage of a live engine', () => {
    const { db } = store();
    table(db, 'Hot', 'sensor');
    fill(db, 'Hot', 'sensor', (i) => `sensor-${i}`);
    for (let i = 0; i < 200; i++) db.getItem({ TableName: 'Hot', Key: { sensor: { S: 'sensor-7' }, id: { N: '7' } }, ConsistentRead: true });
    const hot = diagnose(db).filter((f) => f.check === 'hot-partition');
    expect(hot).toHaveLength(1);
    expect(hot[0]!.message).toMatch(/^partition \d consumed \d+% of the table's units in the last 5 minutes \(\d+ of \d+\) across 4 partitions$/);
  });

  it('flags item collections near their limit', () => {
    const { db } = store();
    table(db, 'Coll', 'sensor', {
      AttributeDefinitions: [
        { AttributeName: 'sensor', AttributeType: 'S' },
        { AttributeName: 'id', AttributeType: 'N' },
        { AttributeName: 'v', AttributeType: 'S' },
      ],
      LocalSecondaryIndexes: [{ IndexName: 'byV', KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'v', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
    });
    fill(db, 'Coll', 'sensor', (i) => `s${i % 100}`);
    // A tiny limit makes these small collections "near" it (the real one is 10 GB).
    Object.defineProperty(db.context.catalog.require('Coll'), 'itemCollectionLimitBytes', { value: 200 });
    const found = diagnose(db).filter((f) => f.check === 'item-collection');
    expect(found.length).toBe(100);
    expect(found[0]!.message).toMatch(/^item collection "s\d+" holds \d+ bytes, \d+% of its 200-byte limit \(tables with local secondary indexes\)$/);
  });
});

describe('edgetable stats', () => {
  it('prints item counts and bytes per partition, with zero usage from a separate process', async () => {
    const { path, db } = store();
    table(db, 'Readings', 'sensor');
    fill(db, 'Readings', 'sensor', (i) => `sensor-${i}`, 100);
    const live = db.partitionMetrics('Readings');
    expect(live.reduce((n, m) => n + m.WriteUnitsLastMinute, 0)).toBe(100);
    db.close();
    const r = await run(['stats', 'Readings', '--path', path]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TABLE\s+PARTITION\s+ITEMS\s+BYTES\s+RCU 1m\s+RCU 5m\s+WCU 1m\s+WCU 5m\s+THROTTLED$/);
    const rows = lines.slice(1, 5).map((l) => l.split(/\s+/));
    expect(rows.map((r) => r[1])).toEqual(['0', '1', '2', '3']);
    expect(rows.reduce((n, r) => n + Number(r[2]), 0)).toBe(100);
    for (const [i, r] of rows.entries()) {
      expect(Number(r[2])).toBe(live[i]!.ItemCount);
      expect(Number(r[3])).toBe(live[i]!.SizeBytes);
      expect(r.slice(4)).toEqual(['0', '0', '0', '0', '0']);
    }
    expect(lines[5]).toContain('a separate process shows 0');
  });
});
