/** better-sqlite3 as bench/block-layout.ts compares it with the LMDB layouts of bench/block-layouts.ts. */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { wireOf, type Layout, type WireItem } from './block-layouts.js';
import type { Reading } from './workload.js';

const require = createRequire(import.meta.url);
interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface Database {
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): Statement;
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
}
const SqliteDatabase = require('better-sqlite3') as new (file: string) => Database;
const COLUMNS = 'sensorId, ts, temperature, humidity, pressure, battery, rssi, status, firmware, location, gateway, model';
const PARAMS = '@sensorId, @ts, @temperature, @humidity, @pressure, @battery, @rssi, @status, @firmware, @location, @gateway, @model';
type Row = Reading;

/** Rows mapped to wire items after the query: what a DynamoDB-shaped answer over SQLite would cost. */
export function wireOfRow(r: Row): WireItem {
  return wireOf(r);
}

/** better-sqlite3: WAL, synchronous=FULL, WITHOUT ROWID (sensorId, ts); `wire` maps rows to wire items. */
export class SqliteLayout implements Layout {
  files: string[] = [];
  private db: Database | undefined;
  private s!: Record<'put' | 'window' | 'latest' | 'get' | 'scan' | 'update', Statement>;
  private putMany!: (rs: readonly Reading[]) => void;
  /** Reads return rows (false) or rows mapped to wire items (true); one store serves both. */
  wire = false;
  get name(): string {
    return this.wire ? 'sqlite-wire' : 'sqlite-rows';
  }
  open(dir: string): void {
    const file = join(dir, 'readings.db');
    this.files = [file, `${file}-wal`];
    const db = (this.db = new SqliteDatabase(file));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(`CREATE TABLE IF NOT EXISTS readings (sensorId TEXT NOT NULL, ts INTEGER NOT NULL,
      temperature REAL, humidity REAL, pressure REAL, battery INTEGER, rssi INTEGER,
      status TEXT, firmware TEXT, location TEXT, gateway TEXT, model TEXT,
      PRIMARY KEY (sensorId, ts)) WITHOUT ROWID`);
    this.s = {
      put: db.prepare(`INSERT OR REPLACE INTO readings (${COLUMNS}) VALUES (${PARAMS})`),
      window: db.prepare('SELECT * FROM readings WHERE sensorId = ? AND ts BETWEEN ? AND ? ORDER BY ts'),
      latest: db.prepare('SELECT * FROM readings WHERE sensorId = ? ORDER BY ts DESC LIMIT ?'),
      get: db.prepare('SELECT * FROM readings WHERE sensorId = ? AND ts = ?'),
      scan: db.prepare('SELECT * FROM readings ORDER BY sensorId, ts'),
      update: db.prepare('UPDATE readings SET temperature = ? WHERE sensorId = ? AND ts = ?'),
    };
    const put = this.s.put;
    this.putMany = db.transaction((rs: readonly Reading[]) => {
      for (const r of rs) put.run(r);
    });
  }
  putBatch(items: readonly Reading[]): void {
    this.putMany(items);
  }
  private out(rows: unknown[]): WireItem[] {
    return this.wire ? (rows as Row[]).map(wireOfRow) : (rows as WireItem[]);
  }
  window(sensor: number, from: number, to: number): WireItem[] {
    return this.out(this.s.window.all(sid(sensor), from, to));
  }
  latest(sensor: number, count: number): WireItem[] {
    return this.out(this.s.latest.all(sid(sensor), count));
  }
  get(sensor: number, ts: number): WireItem | undefined {
    const row = this.s.get.get(sid(sensor), ts) as Row | undefined;
    return row === undefined ? undefined : this.wire ? wireOfRow(row) : (row as unknown as WireItem);
  }
  scan(): number {
    let n = 0;
    for (const row of this.s.scan.iterate()) if (this.wire ? wireOfRow(row as Row) : row) n++;
    return n;
  }
  update(sensor: number, ts: number, temperature: string): void {
    this.s.update.run(Number(temperature), sid(sensor), ts);
  }
  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}

function sid(s: number): string {
  return `sensor-${String(s).padStart(4, '0')}`;
}
