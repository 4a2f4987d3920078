/** edgetable through its public API only: DynamoDB request shapes in, response shapes out. */
import type { Contender } from '../contender.js';
import type { KeyRef, Reading, Window } from '../workload.js';
import type { KeyOutput } from '../../src/api/shapes.js';
import { open, type Edgetable } from '../../src/edgetable.js';
import type { Durability } from '../../src/storage/store-options.js';
import { compileExpressions } from '../../src/expr/index.js';

const TABLE = 'Readings';
export type WireItem = Record<string, { S: string } | { N: string }>;

const LATEST_EXPRESSION = {
  KeyConditionExpression: 'sensorId = :s',
  ExpressionAttributeValues: { ':s': { S: 'sensor-0000' } },
};

/** A reading as a DynamoDB wire item. */
export function wireItem(r: Reading): WireItem {
  return {
    sensorId: { S: r.sensorId },
    ts: { N: String(r.ts) },
    temperature: { N: String(r.temperature) },
    humidity: { N: String(r.humidity) },
    pressure: { N: String(r.pressure) },
    battery: { N: String(r.battery) },
    rssi: { N: String(r.rssi) },
    status: { S: r.status },
    firmware: { S: r.firmware },
    location: { S: r.location },
    gateway: { S: r.gateway },
    model: { S: r.model },
  };
}

/**
 * The durability of edgetable's single puts without a flush per commit (the 'put-noflush'
 * workload, against better-sqlite3's synchronous=NORMAL): the one edgetable recommends for a
 * sensor logger that can lose the latest writes on a power cut but never the store.
 */
export const NO_FLUSH_DURABILITY: Durability = 'interval';
/**
 * Writes per LMDB commit in that durability: docs/durability.md pairs 'interval' with held writes
 * for single puts (one LMDB commit per write costs most of what the deferred flush saves, decision 021).
 */
export const NO_FLUSH_WRITES_PER_COMMIT = 400;

/**
 * `durability` 'log': commits through the redo log (src/storage/redo-log.ts), one flush per commit;
 * 'interval': the same log flushed within a second ('relaxed' and 'interval' are compared only by
 * bench/put-durabilities.ts); `logWritesPerCommit` > 1: LMDB commits once per that many of them
 * (store.ts, "Held writes").
 */
export function createContender(durability: Durability = 'sync', logWritesPerCommit = 1): Contender<WireItem> {
  let db: Edgetable | undefined;
  const engine = (): Edgetable => {
    if (!db) throw new Error('edgetable contender is not open');
    return db;
  };
  let path: string | undefined;
  const key = (k: KeyRef) => ({ sensorId: { S: k.sensorId }, ts: { N: String(k.ts) } });

  return {
    name: durability === 'sync' ? 'edgetable' : `edgetable-${durability}${logWritesPerCommit > 1 ? '-held' : ''}`,
    notes: [
      durability === 'interval'
        ? `edgetable-interval: durability 'interval' (the redo log's flush deferred up to syncIntervalMs, 1,000 ms)${logWritesPerCommit > 1 ? `, logWritesPerCommit ${logWritesPerCommit}` : ''}; otherwise as edgetable.`
        : durability === 'relaxed'
        ? "edgetable-relaxed: durability 'relaxed' (each commit's data pages flushed, its meta page by the next flush); otherwise as edgetable."
        : durability === 'sync'
          ? `edgetable: durability 'sync' (LMDB's durable commit: its pages flushed, then its meta page; the default), reopened in durability '${NO_FLUSH_DURABILITY}' with logWritesPerCommit ${NO_FLUSH_WRITES_PER_COMMIT} for the puts without a flush per commit; one table, PartitionCount 1; values as its CBOR item format.`
        : logWritesPerCommit > 1
          ? `edgetable-log-held: durability 'log' with logWritesPerCommit ${logWritesPerCommit} (each write durable by its log record; LMDB commits once per ${logWritesPerCommit} writes or when the event loop turns); otherwise as edgetable.`
          : "edgetable-log: durability 'log' (each commit's changes appended to the redo log and flushed, LMDB committed without flushes, checkpoints on the thread pool); otherwise as edgetable.",
    ],
    open(dir) {
      path = dir;
      db = open({ path: dir, durability, mapSizeBytes: 256 * 1024 * 1024, logWritesPerCommit });
      db.createTable({
        TableName: TABLE,
        KeySchema: [
          { AttributeName: 'sensorId', KeyType: 'HASH' },
          { AttributeName: 'ts', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'sensorId', AttributeType: 'S' },
          { AttributeName: 'ts', AttributeType: 'N' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PartitionCount: 1,
      });
    },
    prepare: wireItem,
    putItem(item) {
      engine().putItem({ TableName: TABLE, Item: item });
    },
    putBatch(items) {
      engine().batchWriteItem({ RequestItems: { [TABLE]: items.map((Item) => ({ PutRequest: { Item } })) } });
    },
    getItem(k) {
      return engine().getItem({ TableName: TABLE, Key: key(k) }).Item ? 1 : 0;
    },
    scanAll(pageItems, maxItems, onPage) {
      let items = 0;
      let start: KeyOutput | undefined;
      do {
        const page = engine().scan({ TableName: TABLE, Limit: pageItems, ...(start ? { ExclusiveStartKey: start } : {}) });
        items += page.Items?.length ?? 0;
        start = page.LastEvaluatedKey;
        onPage?.();
      } while (start && items < maxItems);
      return items;
    },
    queryLatest(sensorId, count) {
      const out = engine().query({
        TableName: TABLE,
        KeyConditionExpression: 'sensorId = :s',
        ExpressionAttributeValues: { ':s': { S: sensorId } },
        ScanIndexForward: false,
        Limit: count,
      });
      return out.Items?.length ?? 0;
    },
    queryWindow(w: Window) {
      const out = engine().query({
        TableName: TABLE,
        KeyConditionExpression: 'sensorId = :s AND ts BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':s': { S: w.sensorId }, ':from': { N: String(w.from) }, ':to': { N: String(w.to) } },
      });
      return out.Items?.length ?? 0;
    },
    incrementCounter(k) {
      engine().updateItem({
        TableName: TABLE,
        Key: key(k),
        UpdateExpression: 'ADD #c :one',
        ExpressionAttributeNames: { '#c': 'c' },
        ExpressionAttributeValues: { ':one': { N: '1' } },
      });
    },
    putIfAbsent(item) {
      try {
        engine().putItem({ TableName: TABLE, Item: item, ConditionExpression: 'attribute_not_exists(sensorId)' });
        return 1;
      } catch (e) {
        if ((e as Error).name === 'ConditionalCheckFailedException') return 0;
        throw e;
      }
    },
    // The variants measure their own durability; the no-flush puts are the default's to run.
    ...(durability === 'sync' && logWritesPerCommit === 1
      ? {
          setNoFlush(noFlush: boolean) {
            engine().close();
            db = open({ path: path!, durability: noFlush ? NO_FLUSH_DURABILITY : durability, logWritesPerCommit: noFlush ? NO_FLUSH_WRITES_PER_COMMIT : 1, mapSizeBytes: 256 * 1024 * 1024 });
          },
        }
      : {}),
    extras: {
      /** The expression work a repeated Query pays even when the parse is cached. */
      compile(sensorId) {
        compileExpressions({ ...LATEST_EXPRESSION, ExpressionAttributeValues: { ':s': { S: sensorId } } });
      },
    },
    close() {
      db?.close();
      db = undefined;
    },
  };
}
