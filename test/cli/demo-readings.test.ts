/** The demo's readings: an hour of three sensors, aligned to the interval, alerts exactly over each limit. */
import { describe, expect, it } from 'vitest';
import { DEMO_TABLE_REQUEST, OVER_LIMIT, READINGS_PER_SENSOR, READING_INTERVAL_MS, SENSORS, demoReadings } from '../../src/cli/demo-readings.js';

const NOW = Date.parse('2026-12-07T10:58:30Z');

describe('demoReadings', () => {
  const items = demoReadings(NOW);

  it('gives each sensor a reading every 5 minutes for the hour ending at the last interval boundary, oldest first', () => {
    expect(items).toHaveLength(SENSORS.length * READINGS_PER_SENSOR);
    for (const { sensor } of SENSORS) {
      const ts = items.filter((i) => i['sensor']?.S === sensor).map((i) => Number(i['ts']?.N));
      expect(ts.at(-1)).toBe(Date.parse('2026-12-07T10:55:00Z'));
      expect(ts[0]).toBe(Date.parse('2026-12-07T10:00:00Z'));
      for (let k = 1; k < ts.length; k++) expect(ts[k]! - ts[k - 1]!).toBe(READING_INTERVAL_MS);
    }
  });

  it('marks a reading over-limit exactly when it is over its sensor limit, and some are', () => {
    for (const item of items) {
      const limit = SENSORS.find((s) => s.sensor === item['sensor']?.S)!.limitC;
      expect(item['alert']?.S === OVER_LIMIT).toBe(Number(item['temp']?.N) > limit);
    }
    const alerted = new Set(items.filter((i) => i['alert'] !== undefined).map((i) => i['sensor']?.S));
    expect(alerted.size).toBeGreaterThanOrEqual(2); // the index spans sensors
  });

  it('is the same for any moment of the same interval', () => {
    expect(demoReadings(NOW + 60_000)).toEqual(items);
  });

  it("indexes only the alert attribute's readings: the GSI's key is alert, which most readings lack", () => {
    expect(DEMO_TABLE_REQUEST.GlobalSecondaryIndexes?.[0]?.KeySchema[0]).toEqual({ AttributeName: 'alert', KeyType: 'HASH' });
    expect(items.filter((i) => i['alert'] === undefined).length).toBeGreaterThan(items.length / 2);
  });
});
