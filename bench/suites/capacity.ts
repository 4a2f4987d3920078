/**
 * Suite `capacity`: what ReturnConsumedCapacity INDEXES costs against NONE (target: under 5%), and
 * how long db.splitPartition takes on a partition of 1,000,000 items.
 *
 * Metering: PutItem of new readings (relaxed durability, so an fsync does not hide the cost) on a
 * table without indexes and on one with 2 GSIs + 1 LSI (INDEXES then builds an arm per index), and
 * Query latest 10 / a time window on a loaded table; NONE and INDEXES interleave in short blocks.
 * Split: a PartitionCount 1 table is filled with BatchWriteItem in relaxed durability (small
 * readings: sensorId, ts, temperature), reopened durable, and split once, timed (one txn, fsync
 * included). The fill stops at its time budget; --quick fills 200,000 items. Either way the
 * output says how many items the split moved.
 */
import { wireItem } from '../contenders/edgetable.js';
import { SENSORS, newReadings, randomSensors, randomWindows, reading } from '../workload.js';
import { fixed, interleave, int, mib, table, type SuiteOptions, type SuiteReport } from '../suite.js';
import { READINGS, benchDir, createReadingsTable, openBenchStore, type Layout } from './readings-table.js';
import type { ReturnConsumedCapacity } from '../../src/api/shapes.js';
import type { Edgetable } from '../../src/edgetable.js';

const TARGET_PERCENT = 5;
const SPLIT_ITEMS = 1_000_000;
const SIZES = {
  full: { compareMs: 4000, writesPerArm: 100_000, readingsPerSensor: 30, splitItems: SPLIT_ITEMS, fillBudgetMs: 120_000 },
  quick: { compareMs: 800, writesPerArm: 20_000, readingsPerSensor: 10, splitItems: 200_000, fillBudgetMs: 20_000 },
};

interface MeterRow {
  operation: string;
  noneOps: number;
  indexesOps: number;
  overheadPercent: number;
  rounds: number;
}

interface SplitRow {
  targetItems: number;
  items: number;
  dataBytes: number;
  fillSeconds: number;
  splitSeconds: number;
  itemsMoved: number;
  children: number[];
  note: string;
}

export async function runCapacitySuite({ quick, log }: SuiteOptions): Promise<SuiteReport> {
  const started = performance.now();
  const sizes = quick ? SIZES.quick : SIZES.full;
  const metering = [...meterWrites('none', sizes, log), ...meterWrites('gsi2+lsi', sizes, log), ...meterQueries(sizes, log)];
  const split = measureSplit(sizes, quick, log);
  const data = { sizes, targetPercent: TARGET_PERCENT, metering, split };
  return { suite: 'capacity', date: new Date().toISOString(), mode: quick ? 'quick' : 'full', seconds: (performance.now() - started) / 1000, markdown: render(data), data };
}

function compare(operation: string, none: (i: number) => unknown, indexes: (i: number) => unknown, blockOps: number, limit: number, sizes: typeof SIZES.full, log: (line: string) => void): MeterRow {
  const c = interleave([none, indexes], { blockOps, budgetMs: sizes.compareMs, limit });
  const row = { operation, noneOps: c.arms[0]!.opsPerSecond, indexesOps: c.arms[1]!.opsPerSecond, overheadPercent: c.overheadPercent[1]!, rounds: c.rounds };
  log(`capacity: ${operation}: NONE ${int(row.noneOps)}, INDEXES ${int(row.indexesOps)} ops/s, ${fixed(row.overheadPercent, 1)}% over ${c.rounds} rounds`);
  return row;
}

function meterWrites(layout: Layout, sizes: typeof SIZES.full, log: (line: string) => void): MeterRow[] {
  const dir = benchDir(`capacity-${layout}`);
  try {
    const db = openBenchStore(dir.path, 'relaxed', 1024 * 2 ** 20);
    createReadingsTable(db, layout);
    const noneItems = newReadings(1_000_000, sizes.writesPerArm).map(wireItem);
    const indexItems = newReadings(2_000_000, sizes.writesPerArm).map(wireItem);
    for (const item of newReadings(3_000_000, 2000).map(wireItem)) db.putItem({ TableName: READINGS, Item: item, ReturnConsumedCapacity: 'INDEXES' });
    const label = layout === 'none' ? 'PutItem, table without indexes' : 'PutItem, table with 2 GSIs + 1 LSI';
    const row = compare(
      label,
      (i) => db.putItem({ TableName: READINGS, Item: noneItems[i]!, ReturnConsumedCapacity: 'NONE' }),
      (i) => db.putItem({ TableName: READINGS, Item: indexItems[i]!, ReturnConsumedCapacity: 'INDEXES' }),
      32,
      sizes.writesPerArm,
      sizes,
      log,
    );
    db.close();
    return [row];
  } finally {
    dir.remove();
  }
}

function meterQueries(sizes: typeof SIZES.full, log: (line: string) => void): MeterRow[] {
  const dir = benchDir('capacity-query');
  try {
    const db = openBenchStore(dir.path, 'relaxed');
    createReadingsTable(db, 'none');
    loadReadings(db, sizes.readingsPerSensor);
    const sensors = randomSensors(21, 100_000);
    const windows = randomWindows(22, 100_000, sizes.readingsPerSensor);
    const latest = (mode: ReturnConsumedCapacity) => (i: number) =>
      db.query({
        TableName: READINGS,
        KeyConditionExpression: 'sensorId = :s',
        ExpressionAttributeValues: { ':s': { S: sensors[i % sensors.length]! } },
        ScanIndexForward: false,
        Limit: 10,
        ReturnConsumedCapacity: mode,
      });
    const window = (mode: ReturnConsumedCapacity) => (i: number) => {
      const w = windows[i % windows.length]!;
      return db.query({
        TableName: READINGS,
        KeyConditionExpression: 'sensorId = :s AND ts BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':s': { S: w.sensorId }, ':from': { N: String(w.from) }, ':to': { N: String(w.to) } },
        ReturnConsumedCapacity: mode,
      });
    };
    for (let i = 0; i < 1000; i++) (latest('INDEXES')(i), window('INDEXES')(i));
    const rows = [
      compare('Query latest 10 of a sensor', latest('NONE'), latest('INDEXES'), 40, Number.MAX_SAFE_INTEGER, sizes, log),
      compare(`Query time window, ${sizes.readingsPerSensor} items`, window('NONE'), window('INDEXES'), 20, Number.MAX_SAFE_INTEGER, sizes, log),
    ];
    db.close();
    return rows;
  } finally {
    dir.remove();
  }
}

function loadReadings(db: Edgetable, readingsPerSensor: number): void {
  for (let i = 0; i < readingsPerSensor; i++) {
    for (let s = 0; s < SENSORS; s += 25) {
      db.batchWriteItem({ RequestItems: { [READINGS]: Array.from({ length: 25 }, (_, k) => ({ PutRequest: { Item: wireItem(reading(s + k, i)) } })) } });
    }
  }
}

function measureSplit(sizes: typeof SIZES.full, quick: boolean, log: (line: string) => void): SplitRow {
  const dir = benchDir('capacity-split');
  try {
    let db = openBenchStore(dir.path, 'relaxed', 1024 * 2 ** 20);
    createReadingsTable(db, 'none');
    const fillStart = performance.now();
    let items = 0;
    while (items < sizes.splitItems && performance.now() - fillStart < sizes.fillBudgetMs) {
      const puts = [];
      for (let k = 0; k < 25 && items < sizes.splitItems; k++, items++) {
        const s = items % SENSORS;
        puts.push({ PutRequest: { Item: { sensorId: { S: `sensor-${String(s).padStart(4, '0')}` }, ts: { N: String(1_700_000_000_000 + Math.floor(items / SENSORS) * 60_000 + s) }, temperature: { N: String(15 + (items % 1500) / 100) } } } });
      }
      db.batchWriteItem({ RequestItems: { [READINGS]: puts } });
      if (items % 100_000 === 0) log(`capacity: filled ${int(items)} items`);
    }
    const fillSeconds = (performance.now() - fillStart) / 1000;
    db.close();
    db = openBenchStore(dir.path, 'sync', 1024 * 2 ** 20);
    const before = db.partitionMetrics(READINGS).find((p) => p.PartitionId >= 0);
    if (!before) throw new Error('capacity: the filled table reports no partition');
    const t0 = performance.now();
    const result = db.splitPartition(READINGS, before.PartitionId);
    const splitSeconds = (performance.now() - t0) / 1000;
    const children = db.partitionMetrics(READINGS).filter((p) => p.PartitionId >= 0).map((p) => p.ItemCount);
    db.close();
    const note =
      items < SPLIT_ITEMS
        ? quick
          ? `scaled down to ${int(items)} items for --quick (the full run fills ${int(SPLIT_ITEMS)})`
          : `scaled down: only ${int(items)} of ${int(SPLIT_ITEMS)} items filled within the ${sizes.fillBudgetMs / 1000} s fill budget on this machine`
        : `${int(items)} items, as asked`;
    log(`capacity: split of ${int(items)} items in ${fixed(splitSeconds, 2)} s (${note})`);
    return { targetItems: SPLIT_ITEMS, items, dataBytes: before.SizeBytes, fillSeconds, splitSeconds, itemsMoved: result?.itemsMoved ?? 0, children, note };
  } finally {
    dir.remove();
  }
}

function render(d: { sizes: typeof SIZES.full; metering: MeterRow[]; split: SplitRow }): string {
  const s = d.split;
  return [
    '### ReturnConsumedCapacity cost and partition split (`--suite capacity`)',
    '',
    `ReturnConsumedCapacity INDEXES against NONE on the same operation, relaxed durability (no fsync), the two interleaved in blocks of 20-40 operations for ${d.sizes.compareMs / 1000} s; ops/s = the median round's rate; overhead = time per operation against NONE's, median over the rounds (negative = within noise). Target: under ${TARGET_PERCENT}%.`,
    '',
    ...table(
      ['operation', 'NONE ops/s', 'INDEXES ops/s', 'overhead', `under ${TARGET_PERCENT}%`],
      d.metering.map((m) => [m.operation, int(m.noneOps), int(m.indexesOps), `${fixed(m.overheadPercent, 1)}%`, m.overheadPercent < TARGET_PERCENT ? 'yes' : 'NO']),
      'lrrrl',
    ),
    '',
    'Partition split (`db.splitPartition`, one txn, durable): a PartitionCount 1 table filled with BatchWriteItem x25 in relaxed durability, then reopened durable and split at its hash midpoint.',
    '',
    ...table(
      ['items in the partition', 'data (DynamoDB bytes)', 'fill', 'split', 'items moved', 'children'],
      [[int(s.items), mib(s.dataBytes), `${fixed(s.fillSeconds, 1)} s (${int(s.items / s.fillSeconds)} items/s)`, `${fixed(s.splitSeconds, 2)} s`, int(s.itemsMoved), s.children.map(int).join(' + ')]],
      'rrrrrl',
    ),
    '',
    `Split size: ${s.note}.`,
    '',
  ].join('\n');
}
