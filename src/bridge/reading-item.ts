/**
 * The default mapping of a sensor frame to an item of the readings table, and that table's shape:
 *
 *   partition key deviceId (S), sort key ts (N, ms since the epoch), PAY_PER_REQUEST
 *   item = { deviceId: S, ts: N, seq: N, [ttlAttribute: N = floor(ts / 1000) + ttlSeconds],
 *            <field>: N | S ... }
 *
 * A field whose name is taken by one of the bridge's attributes is stored under the name with
 * `_` appended (as many as needed), so no reading loses a value and the bridge's attributes
 * always mean what they say.
 */
import type { WireItem } from '../model/attribute-value.js';
import type { SensorFrame } from '../codec/sensor-frame.js';
import type { Edgetable } from '../edgetable.js';
import { tableExists } from './state-table.js';

/** Maps one frame to one item; its key must be unique per (deviceId, seq) for readings to be kept. */
export type MapFrame = (frame: SensorFrame) => WireItem;

export type ReadingMapOptions = { ttlAttribute?: string | undefined; ttlSeconds?: number | undefined };

export function defaultMapFrame(options: ReadingMapOptions = {}): MapFrame {
  const { ttlAttribute, ttlSeconds } = options;
  const ttl = ttlAttribute !== undefined && ttlSeconds !== undefined;
  return (frame) => {
    const item: WireItem = {
      deviceId: { S: frame.deviceId },
      ts: { N: String(frame.ts) },
      seq: { N: String(frame.seq) },
    };
    if (ttl) item[ttlAttribute] = { N: String(Math.floor(frame.ts / 1000) + ttlSeconds) };
    for (const [name, value] of Object.entries(frame.fields)) {
      let attr = name;
      while (Object.prototype.hasOwnProperty.call(item, attr)) attr += '_';
      Object.defineProperty(item, attr, {
        value: typeof value === 'number' ? { N: String(value) } : { S: value },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return item;
  };
}

/** Creates the readings table with the default key schema if it does not exist. */
export function ensureReadingsTable(db: Edgetable, name: string): void {
  if (tableExists(db, name)) return;
  db.createTable({
    TableName: name,
    KeySchema: [
      { AttributeName: 'deviceId', KeyType: 'HASH' },
      { AttributeName: 'ts', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'deviceId', AttributeType: 'S' },
      { AttributeName: 'ts', AttributeType: 'N' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  });
}

/** The key attribute names of a table, to spot two readings of one batch with the same key. */
export function keyAttributeNames(db: Edgetable, name: string): string[] {
  const out = db.describeTable({ TableName: name }) as { Table: { KeySchema: { AttributeName: string }[] } };
  return out.Table.KeySchema.map((k) => k.AttributeName);
}
