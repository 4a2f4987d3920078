/**
 * A record the endpoint refuses for good (here an item whose `gk` is a string where the endpoint
 * table's index wants a number: ValidationException) in the middle of a stream: it goes to the
 * hub's dead letters with its reason, every record after it reaches the endpoint, the cursor
 * moves past it, and the hub log can be pruned behind it. In both write modes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SYNC_DB } from '../../../src/partition/database-names.js';
import { DEAD_LETTER_TABLE } from '../../../src/replication/dead-letters.js';
import { readCursor } from '../../../src/replication/forward-cursor.js';
import { startForwarder, type ForwardOptions } from '../../../src/hub/forward/start-forwarder.js';
import { pruneHubLog } from '../../../src/replication/hub-log.js';
import { itemSize } from '../../../src/model/item-size.js';
import { readShardRaw } from '../../../src/stream/stream-reader.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../../sync/fixtures.js';
import { startDynalite, TEST_CREDENTIALS } from './dynalite.js';
import { createEndpointTable, endpointClient, endpointContents, hubContents } from './endpoint-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const POISON_KEY = { sensor: { S: 's-poison' }, ts: { N: '1' } };

describe('a poison record', () => {
  it.each(['conditional', 'batch'] as const)('is dead-lettered with its reason and forwarding goes on past it (%s mode)', async (writeMode) => {
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const client = endpointClient(dynalite.endpoint);
    cleanups.push(() => client.destroy());
    const { db } = tempDb(cleanups, 'etb-forward-poison-');
    createReadings(db, 'Readings', 1);
    // The endpoint's table has the hub's key schema (so it is forwarded) and an index the hub's has not.
    await createEndpointTable(client, {
      TableName: 'Readings',
      KeySchema: [ { AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' } ],
      AttributeDefinitions: [ { AttributeName: 'sensor', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }, { AttributeName: 'gk', AttributeType: 'N' } ],
      GlobalSecondaryIndexes: [{ IndexName: 'ByGk', KeySchema: [{ AttributeName: 'gk', KeyType: 'HASH' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
      BillingMode: 'PAY_PER_REQUEST',
    });
    writeReadings(db, 0, 50);
    db.putItem({ TableName: 'Readings', Item: { ...POISON_KEY, gk: { S: 'not a number' } } });
    writeReadings(db, 50, 100);

    const options: ForwardOptions = { endpoint: dynalite.endpoint, credentials: TEST_CREDENTIALS, pollMs: 20, baseBackoffMs: 5, maxBackoffMs: 50, batchSize: 20, writeMode };
    const f = startForwarder(db, options);
    cleanups.push(() => f.stop());
    await until(() => f.status().lagRecords === 0 && f.status().deadLettered === 1, 60_000, 'every record forwarded or dead-lettered');

    const hub = hubContents(db, 'Readings');
    expect(hub).toHaveLength(101);
    expect(await endpointContents(client, 'Readings')).toEqual(hub.filter((item) => !item.includes('s-poison')));
    expect(f.status()).toMatchObject({ permanentFailures: 1, deadLettered: 1, errors: 0, lagRecords: 0, oldestUnforwardedAgeMs: 0 });
    expect(f.status().lastError).toMatch(/^forward: ValidationException: /);

    const poisonSeq = readShardRaw(db.store, 'Readings', 0, 1, 1000).findIndex((r) => Buffer.from(r.bytes).includes(Buffer.from('s-poison'))) + 1;
    // Logged with the items the table held when forwarding began, in key order: somewhere in the middle.
    expect(poisonSeq).toBeGreaterThan(1);
    expect(poisonSeq).toBeLessThan(101);
    const letters = db.scan({ TableName: DEAD_LETTER_TABLE }).Items ?? [];
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      stream: { S: `forward:${dynalite.endpoint}/Readings/0` },
      seq: { N: String(poisonSeq) },
      source: { S: 'forward' },
      table: { S: 'Readings' },
      shard: { N: '0' },
      eventName: { S: 'INSERT' },
      key: { M: POISON_KEY },
      image: { M: { ...POISON_KEY, gk: { S: 'not a number' } } },
    });
    expect(letters[0]!['reason']).toEqual({ S: expect.stringMatching(/^forward: ValidationException: .+/) });

    // The cursor is past the poison, so nothing holds the hub log back.
    expect(readCursor(db.store, dynalite.endpoint, 'Readings', 0)).toBe(101);
    const table = db.context.catalog.require('Readings');
    const pruned = pruneHubLog(db.store, table, { syncDb: db.store.database(SYNC_DB), horizonMs: 3_600_000, nowMs: Date.now(), forwardCursor: (shard) => readCursor(db.store, dynalite.endpoint, 'Readings', shard) });
    expect(pruned).toBe(101);
  }, 90_000);

  it("dead-letters an item the hub holds but the endpoint refuses as too large once _et_hlc is added, without its image", async () => {
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const client = endpointClient(dynalite.endpoint);
    cleanups.push(() => client.destroy());
    const { db } = tempDb(cleanups, 'etb-forward-poison-');
    createReadings(db, 'Readings', 1);
    writeReadings(db, 0, 10);
    // 400 KB at the hub exactly (names and values' bytes): the endpoint's copy carries 33 bytes more.
    const key = { sensor: { S: 'big' }, ts: { N: '1' } };
    const fixed = itemSize({ ...key, blob: { S: '' } });
    db.putItem({ TableName: 'Readings', Item: { ...key, blob: { S: 'x'.repeat(400 * 1024 - fixed) } } });
    writeReadings(db, 10, 20);
    const f = startForwarder(db, { endpoint: dynalite.endpoint, credentials: TEST_CREDENTIALS, pollMs: 20, baseBackoffMs: 5, maxBackoffMs: 50 });
    cleanups.push(() => f.stop());
    await until(() => f.status().lagRecords === 0 && f.status().deadLettered === 1, 60_000, 'forwarded or dead-lettered');
    expect(await endpointContents(client, 'Readings')).toHaveLength(20);
    const [letter, ...more] = db.scan({ TableName: DEAD_LETTER_TABLE }).Items ?? [];
    expect(more).toEqual([]);
    expect(letter).toMatchObject({ key: { M: key }, imageOmitted: { BOOL: true }, reason: { S: expect.stringMatching(/^forward: ValidationException: .*size/i) } });
    expect(letter).not.toHaveProperty('image');
  }, 60_000);
});
