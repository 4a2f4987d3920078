/**
 * The demo's data: three sensors reporting every 5 minutes for the last hour, and the table that
 * holds them, as a device would keep readings: partition key `sensor`, sort key `ts` (epoch ms),
 * so one sensor's readings are one item collection in time order; a sparse GSI `alerts` on
 * (`alert`, `ts`) that holds only the readings over their sensor's limit; a stream of every change.
 */
import type { Item } from '../api/shapes.js';
import type { CreateTableInput } from '../api/table-operations.js';

export const DEMO_TABLE = 'SensorReadings';
export const ALERTS_INDEX = 'alerts';
export const OVER_LIMIT = 'over-limit';
export const READING_INTERVAL_MS = 5 * 60_000;
export const READINGS_PER_SENSOR = 12;

/** Each sensor's temperature: a base, a swing of a few degrees over the hour, the alert limit. */
export const SENSORS = [
  { sensor: 'greenhouse-1', baseC: 27, swingC: 4, limitC: 30 },
  { sensor: 'greenhouse-2', baseC: 25, swingC: 3, limitC: 30 },
  { sensor: 'cold-room', baseC: 4, swingC: 3, limitC: 6 },
] as const;

export const DEMO_TABLE_REQUEST: CreateTableInput = {
  TableName: DEMO_TABLE,
  KeySchema: [
    { AttributeName: 'sensor', KeyType: 'HASH' },
    { AttributeName: 'ts', KeyType: 'RANGE' },
  ],
  AttributeDefinitions: [
    { AttributeName: 'sensor', AttributeType: 'S' },
    { AttributeName: 'ts', AttributeType: 'N' },
    { AttributeName: 'alert', AttributeType: 'S' },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: ALERTS_INDEX,
      KeySchema: [
        { AttributeName: 'alert', KeyType: 'HASH' },
        { AttributeName: 'ts', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
  StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  BillingMode: 'PAY_PER_REQUEST',
};

/**
 * The readings of the hour before `nowMs` (rounded down to the interval), oldest first; a reading
 * over its sensor's limit carries `alert: "over-limit"` and so is in the alerts index.
 */
export function demoReadings(nowMs: number): Item[] {
  const last = Math.floor(nowMs / READING_INTERVAL_MS) * READING_INTERVAL_MS;
  const items: Item[] = [];
  for (const [n, s] of SENSORS.entries()) {
    for (let i = 0; i < READINGS_PER_SENSOR; i++) {
      const ts = last - (READINGS_PER_SENSOR - 1 - i) * READING_INTERVAL_MS;
      const tempC = Math.round((s.baseC + s.swingC * Math.sin(i * 0.6 + n)) * 10) / 10;
      const humidity = Math.round(55 + 15 * Math.cos(i * 0.4 + n));
      items.push({
        sensor: { S: s.sensor },
        ts: { N: String(ts) },
        temp: { N: String(tempC) },
        humidity: { N: String(humidity) },
        ...(tempC > s.limitC ? { alert: { S: OVER_LIMIT } } : {}),
      });
    }
  }
  return items;
}
