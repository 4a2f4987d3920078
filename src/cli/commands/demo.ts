/**
 * demo: what edgetable is for, in a few seconds, on a temporary store (removed at the end) or the
 * one at --path: a sensor table (demo-readings.ts) written in batches, a sensor's latest
 * readings, the readings over their limit through a sparse GSI, an alert acknowledged (it leaves
 * the index), the capacity each step consumed, and the table's stream of changes.
 *
 * On a --path store the table is created once and written again on each run (readings of the
 * last hour, so a later run adds the newer ones); a table of that name with another key schema
 * is left alone and refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { ConsumedCapacity, Item, ItemOutput } from '../../api/shapes.js';
import type { WriteRequest } from '../../api/item-operations.js';
import type { Edgetable } from '../../edgetable.js';
import { ResourceNotFoundException } from '../../model/errors.js';
import { MAX_BATCH_WRITE_REQUESTS } from '../../model/limits.js';
import { CliError, type CliIo } from '../cli-io.js';
import { ALERTS_INDEX, DEMO_TABLE, DEMO_TABLE_REQUEST, OVER_LIMIT, READINGS_PER_SENSOR, READING_INTERVAL_MS, SENSORS, demoReadings } from '../demo-readings.js';
import { withDb } from '../with-db.js';

const LATEST = 3;

export function registerDemo(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('what edgetable is for, in a few seconds: a sensor table, latest readings, a GSI, capacity consumed, the stream')
    .option('--path <dir>', 'store folder to keep the demo table in (default: a temporary folder, removed at the end)')
    .action(async (options: { path?: string }) => {
      const path = options.path ?? mkdtempSync(join(tmpdir(), 'edgetable-demo-'));
      try {
        await withDb(path, (db) => runDemo(db, path, options.path === undefined, io));
      } finally {
        if (options.path === undefined) rmSync(path, { recursive: true, force: true });
      }
    });
}

function runDemo(db: Edgetable, path: string, temporary: boolean, io: CliIo): void {
  const started = performance.now();
  const say = (line: string): void => io.out(`${line}\n`);
  say(`store ${path}${temporary ? ' (temporary: removed at the end; --path DIR keeps one)' : ''}`);
  say(`${ensureTable(db) ? 'created' : 'using'} ${DEMO_TABLE}: partition key sensor, sort key ts (epoch ms); GSI ${ALERTS_INDEX} on (alert, ts), sparse; stream of new and old images`);
  // Where this run's records will start in each shard: past the last one now (a new table has no shard yet).
  const before = new Map(db.listShards(DEMO_TABLE).map((s) => [s.ShardId, s.SequenceNumberRange.LastSequenceNumber + 1]));

  const readings = demoReadings(Date.now());
  const written = writeAll(db, readings);
  say(`wrote ${readings.length} readings of ${SENSORS.length} sensors, every ${READING_INTERVAL_MS / 60_000} minutes for the last hour (BatchWriteItem, ${written.batches} batches): ${capacity(written.consumed)}`);

  const sensor = SENSORS[0].sensor;
  const latest = db.query({
    TableName: DEMO_TABLE,
    KeyConditionExpression: 'sensor = :s',
    ExpressionAttributeValues: { ':s': { S: sensor } },
    ScanIndexForward: false,
    Limit: LATEST,
    ReturnConsumedCapacity: 'TOTAL',
  });
  say(`latest ${LATEST} of ${sensor} (Query, newest first, Limit ${LATEST}): ${(latest.Items ?? []).map(reading).join('; ')}: ${capacity([latest.ConsumedCapacity])}`);

  const alerts = queryAlerts(db);
  const alertItems = alerts.Items ?? [];
  say(`over their limit, all sensors (Query of GSI ${ALERTS_INDEX}, newest first): ${alertItems.length} of ${readings.length} readings: ${alertItems.slice(0, 4).map((i) => `${text(i, 'sensor')} ${reading(i)}`).join('; ')}${alertItems.length > 4 ? '; ...' : ''}: ${capacity([alerts.ConsumedCapacity])}`);

  const newest = alertItems[0];
  if (newest !== undefined) {
    const ack = db.updateItem({
      TableName: DEMO_TABLE,
      Key: { sensor: newest['sensor'] as Item[string], ts: newest['ts'] as Item[string] },
      UpdateExpression: 'REMOVE alert SET acknowledged = :t',
      ExpressionAttributeValues: { ':t': { BOOL: true } },
      ReturnConsumedCapacity: 'INDEXES',
    });
    say(`acknowledged the newest (UpdateItem REMOVE alert): it leaves the sparse index, ${queryAlerts(db).Count ?? 0} left: ${capacity([ack.ConsumedCapacity])}`);
  }

  const records = db.listShards(DEMO_TABLE).flatMap((s) => db.readShard(DEMO_TABLE, s.ShardId, { fromSeq: before.get(s.ShardId) ?? 1 }).Records);
  const byEvent = new Map<string, number>();
  for (const r of records) byEvent.set(r.eventName, (byEvent.get(r.eventName) ?? 0) + 1);
  // A put that changes nothing (a later run writing the same reading) makes no record, as in DynamoDB Streams.
  say(`stream of ${DEMO_TABLE}: ${records.length} records from this run (${[...byEvent].map(([event, n]) => `${n} ${event}`).join(', ') || 'a put that changes nothing makes none'}), in commit order per shard`);
  const last = records.at(-1);
  if (last !== undefined) {
    const before = last.dynamodb.OldImage?.['alert'] !== undefined ? `alert ${JSON.stringify(text(last.dynamodb.OldImage, 'alert'))}` : 'no alert';
    const after = last.dynamodb.NewImage?.['acknowledged'] !== undefined ? 'acknowledged, no alert' : 'unchanged';
    say(`  last: ${last.eventName} ${text(last.dynamodb.Keys ?? {}, 'sensor')} at ${clock(last.dynamodb.Keys ?? {})}, old image: ${before}; new image: ${after}`);
  }
  say(`done in ${((performance.now() - started) / 1000).toFixed(2)} s; the same over HTTP with the AWS SDK: edgetable serve (README, "The AWS SDK over HTTP")`);
}

/** Creates the demo table unless it exists; true when created. A same-named table of another key schema is refused. */
function ensureTable(db: Edgetable): boolean {
  try {
    const existing = db.describeTable({ TableName: DEMO_TABLE }).Table;
    const keys = JSON.stringify(existing.KeySchema);
    const index = existing.GlobalSecondaryIndexes?.some((g) => g.IndexName === ALERTS_INDEX) === true;
    if (keys !== JSON.stringify(DEMO_TABLE_REQUEST.KeySchema) || !index || existing.StreamSpecification?.StreamEnabled !== true) {
      throw new CliError('DemoError', `this store already has a table ${DEMO_TABLE} that is not the demo's (keys ${keys}); run the demo on another --path, or without --path`);
    }
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  db.createTable(DEMO_TABLE_REQUEST);
  return true;
}

/** BatchWriteItem, 25 puts a request, unprocessed ones sent again; the capacity of every request. */
function writeAll(db: Edgetable, items: readonly Item[]): { batches: number; consumed: (ConsumedCapacity | undefined)[] } {
  const consumed: (ConsumedCapacity | undefined)[] = [];
  let batches = 0;
  for (let i = 0; i < items.length; i += MAX_BATCH_WRITE_REQUESTS) {
    let pending: WriteRequest[] = items.slice(i, i + MAX_BATCH_WRITE_REQUESTS).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const r = db.batchWriteItem({ RequestItems: { [DEMO_TABLE]: pending }, ReturnConsumedCapacity: 'INDEXES' });
      batches++;
      consumed.push(...(r.ConsumedCapacity ?? []));
      pending = r.UnprocessedItems?.[DEMO_TABLE] ?? [];
    }
  }
  return { batches, consumed };
}

function queryAlerts(db: Edgetable) {
  return db.query({
    TableName: DEMO_TABLE,
    IndexName: ALERTS_INDEX,
    KeyConditionExpression: 'alert = :a',
    ExpressionAttributeValues: { ':a': { S: OVER_LIMIT } },
    ScanIndexForward: false,
    Limit: READINGS_PER_SENSOR * SENSORS.length,
    ReturnConsumedCapacity: 'TOTAL',
  });
}

/** `44 capacity units (36 table, 8 GSI alerts)`: summed over requests, with the index arms when given. */
function capacity(consumed: readonly (ConsumedCapacity | undefined)[]): string {
  let total = 0;
  let table = 0;
  const indexes = new Map<string, number>();
  for (const c of consumed) {
    if (c === undefined) continue;
    total += c.CapacityUnits ?? 0;
    table += c.Table?.CapacityUnits ?? 0;
    for (const [name, arm] of Object.entries(c.GlobalSecondaryIndexes ?? {})) indexes.set(name, (indexes.get(name) ?? 0) + (arm.CapacityUnits ?? 0));
  }
  const arms = indexes.size === 0 ? '' : ` (${table} table, ${[...indexes].map(([name, u]) => `${u} GSI ${name}`).join(', ')})`;
  return `${total} capacity units${arms}`;
}

/** `10:55Z 31.2 °C 40%` */
function reading(item: ItemOutput): string {
  return `${clock(item)} ${text(item, 'temp')} °C ${text(item, 'humidity')}%`;
}

function clock(item: ItemOutput | Item): string {
  return `${new Date(Number(text(item, 'ts'))).toISOString().slice(11, 16)}Z`;
}

function text(item: ItemOutput | Item, name: string): string {
  const value = item[name] as { S?: string; N?: string } | undefined;
  return value?.S ?? value?.N ?? '';
}
