/**
 * better-sqlite3 with the same primary key (sensorId, ts) in a WITHOUT ROWID table (clustered on
 * the key, like the LMDB B-tree), values as typed columns. WAL with synchronous=FULL so every
 * commit is fsynced, as LMDB's default is; synchronous=NORMAL for the no-flush-per-commit puts
 * (WAL frames flushed at checkpoints only: a power cut loses the latest commits, never the
 * database). Prepared statements, reused.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Contender } from '../contender.js';
import type { KeyRef, Reading, Window } from '../workload.js';

interface RunResult {
  changes: number;
}
interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface Database {
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): Statement;
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
}
const SqliteDatabase = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Database;

const COLUMNS = 'sensorId, ts, temperature, humidity, pressure, battery, rssi, status, firmware, location, gateway, model';
const PARAMS = '@sensorId, @ts, @temperature, @humidity, @pressure, @battery, @rssi, @status, @firmware, @location, @gateway, @model';

export function createContender(synchronous: 'FULL' | 'NORMAL' = 'FULL'): Contender<Reading> {
  let db: Database | undefined;
  let s: ReturnType<typeof statements> | undefined;
  const st = () => {
    if (!s) throw new Error('sqlite contender is not open');
    return s;
  };

  return {
    name: synchronous === 'FULL' ? 'better-sqlite3' : 'better-sqlite3-normal',
    notes: [
      synchronous === 'FULL'
        ? 'better-sqlite3: journal_mode=WAL, synchronous=FULL (fsync per commit, parity with LMDB), synchronous=NORMAL for the puts without a flush per commit (the WAL flushed at checkpoints); WITHOUT ROWID table, PRIMARY KEY (sensorId, ts), values as typed columns (not a blob).'
        : 'better-sqlite3-normal: journal_mode=WAL, synchronous=NORMAL (no fsync per commit: the WAL is flushed at its checkpoints); otherwise as better-sqlite3.',
    ],
    open(dir) {
      db = new SqliteDatabase(join(dir, 'readings.db'));
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${synchronous}`);
      db.exec(`CREATE TABLE readings (
        sensorId TEXT NOT NULL, ts INTEGER NOT NULL,
        temperature REAL, humidity REAL, pressure REAL, battery INTEGER, rssi INTEGER,
        status TEXT, firmware TEXT, location TEXT, gateway TEXT, model TEXT, c INTEGER,
        PRIMARY KEY (sensorId, ts)) WITHOUT ROWID`);
      s = statements(db);
    },
    prepare: (r) => r,
    putItem(r) {
      st().put.run(r);
    },
    putBatch(rs) {
      st().putMany(rs);
    },
    getItem(k: KeyRef) {
      return st().get.get(k.sensorId, k.ts) ? 1 : 0;
    },
    scanAll(pageItems, maxItems, onPage) {
      let total = 0;
      let rows = st().scanFirst.all(pageItems) as { sensorId: string; ts: number }[];
      for (;;) {
        total += rows.length;
        onPage?.();
        const last = rows[rows.length - 1];
        if (rows.length < pageItems || !last || total >= maxItems) return total;
        rows = st().scanNext.all(last.sensorId, last.ts, pageItems) as { sensorId: string; ts: number }[];
      }
    },
    queryLatest(sensorId, count) {
      return st().latest.all(sensorId, count).length;
    },
    queryWindow(w: Window) {
      return st().window.all(w.sensorId, w.from, w.to).length;
    },
    incrementCounter(k) {
      st().increment.run(k.sensorId, k.ts);
    },
    putIfAbsent(r) {
      return st().insertNew.run(r).changes;
    },
    setNoFlush(noFlush) {
      db?.pragma(`synchronous = ${noFlush ? 'NORMAL' : 'FULL'}`);
    },
    close() {
      db?.close();
      db = undefined;
      s = undefined;
    },
  };
}

function statements(db: Database) {
  const put = db.prepare(`INSERT OR REPLACE INTO readings (${COLUMNS}) VALUES (${PARAMS})`);
  return {
    put,
    putMany: db.transaction((rs: readonly Reading[]) => {
      for (const r of rs) put.run(r);
    }),
    insertNew: db.prepare(`INSERT INTO readings (${COLUMNS}) VALUES (${PARAMS}) ON CONFLICT DO NOTHING`),
    get: db.prepare('SELECT * FROM readings WHERE sensorId = ? AND ts = ?'),
    scanFirst: db.prepare('SELECT * FROM readings ORDER BY sensorId, ts LIMIT ?'),
    scanNext: db.prepare('SELECT * FROM readings WHERE (sensorId, ts) > (?, ?) ORDER BY sensorId, ts LIMIT ?'),
    latest: db.prepare('SELECT * FROM readings WHERE sensorId = ? ORDER BY ts DESC LIMIT ?'),
    window: db.prepare('SELECT * FROM readings WHERE sensorId = ? AND ts BETWEEN ? AND ? ORDER BY ts'),
    increment: db.prepare('UPDATE readings SET c = coalesce(c, 0) + 1 WHERE sensorId = ? AND ts = ?'),
  };
}
