/**
 * The sensor readings table of the indexes and capacity suites, in index layouts from none to two
 * GSIs plus an LSI, and a store opened for benchmarking (background timers off, so a TTL pass or
 * a split check never lands inside a timed loop).
 *
 * Indexes (every reading has all their key attributes, so each write touches every index):
 * - GSI `bySensor`: sensorId / ts, projection ALL: the same key as the table, so the same Query
 *   runs on the table and on the index and returns the same items.
 * - GSI `byGateway`: gateway / ts, KEYS_ONLY: a typical fan-in index (17 gateways).
 * - LSI `byBattery`: sensorId / battery, KEYS_ONLY.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GlobalSecondaryIndex, LocalSecondaryIndex } from '../../src/api/table-operations.js';
import { open, type Edgetable } from '../../src/edgetable.js';
import type { Durability } from '../../src/storage/store-options.js';

export const READINGS = 'Readings';
export const SENSOR_GSI = 'bySensor';

export const LAYOUTS = ['none', 'lsi', 'gsi1', 'gsi2', 'gsi2+lsi'] as const;
export type Layout = (typeof LAYOUTS)[number];

export const LAYOUT_LABELS: Record<Layout, string> = {
  none: 'no index',
  lsi: '1 LSI',
  gsi1: '1 GSI',
  gsi2: '2 GSIs',
  'gsi2+lsi': '2 GSIs + 1 LSI',
};

const key = (hash: string, range: string) => [
  { AttributeName: hash, KeyType: 'HASH' as const },
  { AttributeName: range, KeyType: 'RANGE' as const },
];

const GSI = {
  bySensor: { IndexName: SENSOR_GSI, KeySchema: key('sensorId', 'ts'), Projection: { ProjectionType: 'ALL' } },
  byGateway: { IndexName: 'byGateway', KeySchema: key('gateway', 'ts'), Projection: { ProjectionType: 'KEYS_ONLY' } },
} satisfies Record<string, GlobalSecondaryIndex>;
const LSI = { IndexName: 'byBattery', KeySchema: key('sensorId', 'battery'), Projection: { ProjectionType: 'KEYS_ONLY' } } satisfies LocalSecondaryIndex;

export function createReadingsTable(db: Edgetable, layout: Layout): void {
  const gsis = layout === 'gsi1' ? [GSI.bySensor] : layout === 'gsi2' || layout === 'gsi2+lsi' ? [GSI.bySensor, GSI.byGateway] : [];
  const lsis = layout === 'lsi' || layout === 'gsi2+lsi' ? [LSI] : [];
  const attributes = new Map<string, 'S' | 'N'>([
    ['sensorId', 'S'],
    ['ts', 'N'],
  ]);
  if (gsis.length > 1) attributes.set('gateway', 'S');
  if (lsis.length > 0) attributes.set('battery', 'N');
  db.createTable({
    TableName: READINGS,
    KeySchema: key('sensorId', 'ts'),
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 1,
    ...(gsis.length > 0 ? { GlobalSecondaryIndexes: gsis } : {}),
    ...(lsis.length > 0 ? { LocalSecondaryIndexes: lsis } : {}),
  });
}

/** A fresh temp dir; `remove` deletes it (the store must be closed first). */
export function benchDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `edgetable-bench-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function openBenchStore(path: string, durability: Durability, mapSizeBytes = 256 * 2 ** 20): Edgetable {
  return open({ path, durability, mapSizeBytes, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
}
