/** The dead letters' retention and count cap, applied by trimDeadLetters; countDeadLetters is exact. */
import { afterEach, describe, expect, it } from 'vitest';
import { countDeadLetters, trimDeadLetters } from '../../src/hub/dead-letter-bounds.js';
import { DEAD_LETTER_TABLE } from '../../src/replication/dead-letters.js';
import { tempDb, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DAY_MS = 86_400_000;

describe('dead-letter bounds', () => {
  it('counts 0 before the table exists, then every dead letter', () => {
    const { db } = tempDb(cleanups, 'etb-dl-bounds-');
    expect(countDeadLetters(db)).toBe(0);
    db.replica.deadLetters();
    db.putItem({ TableName: DEAD_LETTER_TABLE, Item: { stream: { S: 's' }, seq: { N: '1' }, refusedAt: { N: '0' } } });
    expect(countDeadLetters(db)).toBe(1);
  });

  it('deletes what is past the retention, then the oldest past the cap, and says how many of each', async () => {
    const { db } = tempDb(cleanups, 'etb-dl-bounds-');
    db.replica.deadLetters();
    const now = Date.now();
    // 3 older than a day, 9 within it, across two streams; refusedAt order is not key order.
    const ages = [3 * DAY_MS, 2 * DAY_MS, DAY_MS + 1, 9_000, 8_000, 7_000, 6_000, 5_000, 4_000, 3_000, 2_000, 1_000];
    ages.forEach((age, i) => db.putItem({ TableName: DEAD_LETTER_TABLE, Item: { stream: { S: i % 2 ? 'a' : 'b' }, seq: { N: String(100 - i) }, refusedAt: { N: String(now - age) } } }));
    expect(await trimDeadLetters(db, { maxItems: 100, retentionMs: DAY_MS }, now)).toEqual({ expired: 3, dropped: 0 });
    expect(countDeadLetters(db)).toBe(9);
    expect(await trimDeadLetters(db, { maxItems: 5, retentionMs: DAY_MS }, now)).toEqual({ expired: 0, dropped: 4 });
    const left = (db.scan({ TableName: DEAD_LETTER_TABLE }).Items ?? []).map((i) => now - Number((i['refusedAt'] as { N: string }).N)).sort((a, b) => a - b);
    expect(left).toEqual([1_000, 2_000, 3_000, 4_000, 5_000]);
    expect(await trimDeadLetters(db, { maxItems: 5, retentionMs: DAY_MS }, now)).toEqual({ expired: 0, dropped: 0 });
  });
});
