/**
 * Shared by the fault, damage and hostile-input tests: temp folders, the indexed and logged table
 * of the crash harness seeded with a few items, and a snapshot of everything a write can change
 * (items, DescribeTable counts, index agreement, change-log positions) to prove "nothing partial".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { readTable } from './read-table.js';
import { TABLE, canonical, createTableRequest, type Item } from './workload.js';

/** Temp folders removed after each test; engines registered with `track` are closed first. */
export function useTempDirs(prefix: string): { dir(): string; track(db: Edgetable): Edgetable } {
  const dirs: string[] = [];
  const dbs: Edgetable[] = [];
  afterEach(() => {
    for (const db of dbs.splice(0)) if (!db.store.closed) db.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    dir() {
      const d = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    track(db) {
      dbs.push(db);
      return db;
    },
  };
}

export function seedItem(i: number, extra: Item = {}): Item {
  return {
    pk: { S: `p${i % 4}` },
    sk: { N: String(i) },
    ver: { N: '1' },
    lsk: { S: `l${i}` },
    g: { S: `g${i % 3}` },
    gs: { N: String(i) },
    pad: { S: 'x'.repeat(50 + i) },
    ...extra,
  };
}

/** Creates the crash table (LSI, GSI, change log) with `count` items. */
export function seedTable(db: Edgetable, count = 12): void {
  db.createTable(createTableRequest());
  for (let i = 0; i < count; i++) db.putItem({ TableName: TABLE, Item: seedItem(i) });
}

export type Snapshot = {
  items: string[];
  ItemCount: number;
  TableSizeBytes: number;
  indexDifferences: number;
  shards: string[];
};

export function snapshot(db: Edgetable): Snapshot {
  const items = [...readTable(db).values()].map(canonical).sort();
  const { ItemCount, TableSizeBytes } = db.describeTable({ TableName: TABLE }).Table as { ItemCount: number; TableSizeBytes: number };
  const shards = db.listShards(TABLE).map((s) => `${s.ShardId}:${s.SequenceNumberRange.LastSequenceNumber}`);
  return { items, ItemCount, TableSizeBytes, indexDifferences: db.verify().Differences, shards };
}
