/**
 * Suite `indexes`: what secondary indexes cost a write, and what a Query on a GSI costs against the
 * same Query on the table.
 *
 * Writes: PutItem of new sensor readings (180-byte items) into the readings table in each layout
 * of readings-table.ts, one fresh store per layout, the layouts interleaved in short blocks
 * (suite.ts interleave); durable ('sync', an fsync per commit), then relaxed (no fsync, so the index
 * work is not hidden behind the disk); plus the write units one PutItem reports with
 * ReturnConsumedCapacity INDEXES (untimed), split per table and index.
 * Reads: a table with the `bySensor` GSI (same key, projection ALL) is loaded, then Query latest 10
 * and a time window run on the table and on the GSI, interleaved.
 */
import { wireItem } from '../contenders/edgetable.js';
import { SENSORS, newReadings, randomSensors, randomWindows, reading } from '../workload.js';
import { fixed, int, interleave, table, type SuiteOptions, type SuiteReport } from '../suite.js';
import { LAYOUTS, LAYOUT_LABELS, READINGS, SENSOR_GSI, benchDir, createReadingsTable, openBenchStore, type Layout } from './readings-table.js';
import type { Edgetable } from '../../src/edgetable.js';
import type { ConsumedCapacity } from '../../src/capacity/consumed-capacity.js';

/** Budgets are for all layouts together (interleaved), or both arms of a Query. */
const SIZES = {
  full: { durableMs: 8000, relaxedMs: 5000, maxWrites: 100_000, readingsPerSensor: 40, queryMs: 4000 },
  quick: { durableMs: 1500, relaxedMs: 1000, maxWrites: 20_000, readingsPerSensor: 12, queryMs: 800 },
};
/** New-key reading indexes, far above the loaded ones. */
const FIRST_NEW_INDEX = 1_000_000;

interface WriteRow {
  layout: Layout;
  durableOps: number;
  /** Time per PutItem against the no-index store's, median over rounds, percent. */
  durableCostPercent: number;
  relaxedOps: number;
  relaxedCostPercent: number;
  wcuPerWrite: number;
  /** Units per arm of one PutItem, e.g. { table: 1, bySensor: 1 }. */
  wcuBreakdown: Record<string, number>;
}

interface QueryRow {
  query: string;
  tableOps: number;
  gsiOps: number;
  /** Items per query (table, GSI): the two must agree. */
  items: [number, number];
  gsiOverheadPercent: number;
}

export async function runIndexesSuite({ quick, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  const sizes = quick ? SIZES.quick : SIZES.full;
  const writes = measureWrites(sizes, log);
  const queries = measureQueries(sizes, log);
  const data = { sizes, writes, queries };
  return { suite: 'indexes', date: new Date().toISOString(), mode: quick ? 'quick' : 'full', seconds: (performance.now() - started) / 1000, markdown: render(data), data };
}

/**
 * One store per layout, all open at once, their PutItems interleaved in short blocks (durable,
 * then reopened relaxed); the same new readings go to every store.
 */
function measureWrites(sizes: typeof SIZES.full, log: (line: string) => void): WriteRow[] {
  const dirs = LAYOUTS.map((layout) => benchDir(`indexes-${layout}`));
  const items = newReadings(FIRST_NEW_INDEX, sizes.maxWrites + 300).map(wireItem);
  const puts = (dbs: Edgetable[], offset: number) => dbs.map((db) => (i: number) => db.putItem({ TableName: READINGS, Item: items[offset + i]! }));
  try {
    let dbs = LAYOUTS.map((layout, k) => {
      const db = openBenchStore(dirs[k]!.path, 'sync');
      createReadingsTable(db, layout);
      return db;
    });
    // One PutItem's units, from new items past the timed ones (all in the same size class).
    const capacities = dbs.map((db) => {
      let capacity: ConsumedCapacity | undefined;
      for (let i = 0; i < 20; i++) {
        const out = db.putItem({ TableName: READINGS, Item: items[sizes.maxWrites + 280 + i]!, ReturnConsumedCapacity: 'INDEXES' }) as { ConsumedCapacity?: ConsumedCapacity };
        capacity = out.ConsumedCapacity;
      }
      return capacity;
    });
    const half = sizes.maxWrites / 2;
    interleave(puts(dbs, sizes.maxWrites), { blockOps: 10, budgetMs: Infinity, limit: 50 });
    const durable = interleave(puts(dbs, 0), { blockOps: 4, budgetMs: sizes.durableMs, limit: half });
    for (const db of dbs) db.close();
    dbs = LAYOUTS.map((_, k) => openBenchStore(dirs[k]!.path, 'relaxed'));
    interleave(puts(dbs, sizes.maxWrites + 50), { blockOps: 50, budgetMs: Infinity, limit: 200 });
    const relaxed = interleave(puts(dbs, half), { blockOps: 32, budgetMs: sizes.relaxedMs, limit: half });
    for (const db of dbs) db.close();
    return LAYOUTS.map((layout, k) => {
      const capacity = capacities[k];
      const wcuBreakdown: Record<string, number> = { table: capacity?.Table?.CapacityUnits ?? NaN };
      for (const [name, arm] of Object.entries({ ...capacity?.GlobalSecondaryIndexes, ...capacity?.LocalSecondaryIndexes })) wcuBreakdown[name] = arm.CapacityUnits;
      const row: WriteRow = {
        layout,
        durableOps: durable.arms[k]!.opsPerSecond,
        durableCostPercent: durable.overheadPercent[k]!,
        relaxedOps: relaxed.arms[k]!.opsPerSecond,
        relaxedCostPercent: relaxed.overheadPercent[k]!,
        wcuPerWrite: capacity?.CapacityUnits ?? NaN,
        wcuBreakdown,
      };
      log(`indexes: ${LAYOUT_LABELS[layout]}: ${int(row.durableOps)} durable, ${int(row.relaxedOps)} relaxed PutItem/s, ${row.wcuPerWrite} WCU`);
      return row;
    });
  } finally {
    for (const dir of dirs) dir.remove();
  }
}

function measureQueries(sizes: typeof SIZES.full, log: (line: string) => void): QueryRow[] {
  const dir = benchDir('indexes-query');
  try {
    const db = openBenchStore(dir.path, 'relaxed');
    createReadingsTable(db, 'gsi1');
    const rps = sizes.readingsPerSensor;
    for (let i = 0; i < rps; i++) {
      for (let s = 0; s < SENSORS; s += 25) {
        const puts = Array.from({ length: 25 }, (_, k) => ({ PutRequest: { Item: wireItem(reading(s + k, i)) } }));
        db.batchWriteItem({ RequestItems: { [READINGS]: puts } });
      }
    }
    log(`indexes: loaded ${SENSORS * rps} readings with the ${SENSOR_GSI} GSI`);
    const sensors = randomSensors(11, 100_000);
    const windows = randomWindows(12, 100_000, rps);
    const latest = (index?: string) => (i: number) =>
      db.query({
        TableName: READINGS,
        ...(index ? { IndexName: index } : {}),
        KeyConditionExpression: 'sensorId = :s',
        ExpressionAttributeValues: { ':s': { S: sensors[i % sensors.length]! } },
        ScanIndexForward: false,
        Limit: 10,
      }).Items?.length ?? 0;
    const window = (index?: string) => (i: number) => {
      const w = windows[i % windows.length]!;
      return (
        db.query({
          TableName: READINGS,
          ...(index ? { IndexName: index } : {}),
          KeyConditionExpression: 'sensorId = :s AND ts BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':s': { S: w.sensorId }, ':from': { N: String(w.from) }, ':to': { N: String(w.to) } },
        }).Items?.length ?? 0
      );
    };
    const rows: QueryRow[] = [];
    for (const [label, make, blockOps] of [
      ['Query latest 10 of a sensor', latest, 40],
      [`Query time window, ${rps} items`, window, 10],
    ] as const) {
      const arms = [make(), make(SENSOR_GSI)];
      interleave(arms, { blockOps, budgetMs: Infinity, limit: 20 * blockOps });
      const r = interleave(arms, { blockOps, budgetMs: sizes.queryMs, limit: Number.MAX_SAFE_INTEGER });
      const row: QueryRow = { query: label, tableOps: r.arms[0]!.opsPerSecond, gsiOps: r.arms[1]!.opsPerSecond, items: [arms[0]!(1), arms[1]!(1)], gsiOverheadPercent: r.overheadPercent[1]! };
      log(`indexes: ${label}: table ${int(row.tableOps)}, GSI ${int(row.gsiOps)} ops/s`);
      rows.push(row);
    }
    db.close();
    return rows;
  } finally {
    dir.remove();
  }
}

function render(d: { sizes: typeof SIZES.full; writes: WriteRow[]; queries: QueryRow[] }): string {
  const pct = (x: number) => `${x > 0 ? '+' : ''}${fixed(x, 0)}%`;
  const lines = [
    '### Secondary indexes: write cost and GSI reads (`--suite indexes`)',
    '',
    `PutItem of new 180-byte sensor readings, one per txn, one fresh store per layout, the layouts interleaved in blocks of a few PutItems (${d.sizes.durableMs / 1000} s durable = fsync per commit, then ${d.sizes.relaxedMs / 1000} s relaxed = no fsync, for all layouts together). ops/s = the median round's rate; "cost" = time per PutItem against the no-index store's, median over the rounds. WCU from ReturnConsumedCapacity INDEXES on one PutItem (untimed). GSI \`bySensor\` = sensorId/ts, ALL; GSI \`byGateway\` = gateway/ts, KEYS_ONLY; LSI \`byBattery\` = sensorId/battery, KEYS_ONLY.`,
    '',
    ...table(
      ['indexes', 'PutItem ops/s, durable', 'cost', 'PutItem ops/s, relaxed', 'cost', 'WCU per write', 'WCU by arm'],
      d.writes.map((w) => [
        LAYOUT_LABELS[w.layout],
        int(w.durableOps),
        pct(w.durableCostPercent),
        int(w.relaxedOps),
        pct(w.relaxedCostPercent),
        String(w.wcuPerWrite),
        Object.entries(w.wcuBreakdown).map(([k, v]) => `${k} ${v}`).join(', '),
      ]),
      'lrrrrrl',
    ),
    '',
    `Query on the \`bySensor\` GSI against the same Query on the table (${SENSORS.toLocaleString('en-US')} sensors x ${d.sizes.readingsPerSensor} readings, relaxed store), interleaved in blocks for ${d.sizes.queryMs / 1000} s; ops/s = the median round's rate; GSI overhead = time per Query against the table's, median over the rounds.`,
    '',
    ...table(
      ['query', 'table ops/s', 'GSI ops/s', 'GSI/table', 'GSI overhead', 'items (table / GSI)'],
      d.queries.map((q) => [q.query, int(q.tableOps), int(q.gsiOps), `${fixed(q.gsiOps / q.tableOps, 2)}x`, pct(q.gsiOverheadPercent), `${q.items[0]} / ${q.items[1]}`]),
      'lrrrrr',
    ),
    '',
  ];
  for (const q of d.queries) if (q.items[0] !== q.items[1]) lines.push(`- WARNING ${q.query}: the table and the GSI returned different item counts.`, '');
  return lines.join('\n');
}
