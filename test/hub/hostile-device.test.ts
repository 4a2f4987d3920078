/**
 * A hostile device at the hub (issue 44): the allow-list and subscriptions limit what a device
 * receives; write grants limit what it writes (docs/security.md, "What a device may write"). Through
 * the test broker (aedes, or Mosquitto with MQTT_URL): a cross-partition write, a cross-table
 * write, a schema announcement of an ungranted table and a far-future clock are refused, counted,
 * dead-lettered with their reason and told to the device, while its legitimate writes in the same
 * batch are applied and nothing of the refused reaches the other devices.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Topics } from '../../src/sync/protocol/topics.js';
import { MqttLink } from '../../src/sync/mqtt-link.js';
import { decodeSyncAck, encodeSyncBatch, type SyncAck } from '../../src/sync/protocol/sync-batch.js';
import { encodeChangeRecord } from '../../src/stream/change-record.js';
import { DEAD_LETTER_TABLE } from '../../src/replication/dead-letters.js';
import type { Edgetable } from '../../src/edgetable.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tempDb, until, type Cleanup } from '../sync/fixtures.js';
import { createWorkOrders, deviceSync, getOrder, hubAt, putOrder, siteContents, uniqueNamespace } from '../sync/down-fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const DAY_MS = 86_400_000;

const stateOf = (db: Edgetable, site: string, job: string) => (getOrder(db, site, job)?.state as { S?: string } | undefined)?.S;
const deadLetters = (db: Edgetable) =>
  (db.scan({ TableName: DEAD_LETTER_TABLE }).Items as Record<string, { S?: string; N?: string }>[]).map((l) => ({ device: l.device!.S, table: l.table!.S, seq: Number(l.seq!.N), reason: l.reason!.S }));

describe('a hostile device at the hub', () => {
  it("a device agent writing outside its grant: refused one by one or whole, counted, in the device's status, never sent to the partition's devices", async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const ns = uniqueNamespace();
    // No writeGrants: each device writes what its subscription grant lets it receive.
    const { hub, db: hubDb } = hubAt(cleanups, broker.url, ns, { subscriptions: { 'van-7': { WorkOrders: ['site-7'] }, 'van-9': { WorkOrders: ['site-9'] } } });
    createWorkOrders(hubDb);
    putOrder(hubDb, 'site-9', 'j1', 'assigned');

    const van9 = tempDb(cleanups, 'etb-van9-');
    createWorkOrders(van9.db);
    const sync9 = await deviceSync(cleanups, van9.db, broker.url, ns, 'van-9', [{ name: 'WorkOrders', direction: 'both', partitionKeys: ['site-9'] }]);
    await sync9.caughtUp();
    expect(stateOf(van9.db, 'site-9', 'j1')).toBe('assigned');

    const van7 = tempDb(cleanups, 'etb-van7-');
    createWorkOrders(van7.db);
    createReadings(van7.db, 'Secrets', 1);
    const sync7 = await deviceSync(cleanups, van7.db, broker.url, ns, 'van-7', [{ name: 'WorkOrders', direction: 'both', partitionKeys: ['site-7'] }, 'Secrets']);
    await sync7.caughtUp();
    putOrder(van7.db, 'site-7', 'j7', 'legit');
    putOrder(van7.db, 'site-9', 'j1', 'overwritten'); // another site's item
    putOrder(van7.db, 'site-9', 'j666', 'injected'); // a new item in another site
    van7.db.putItem({ TableName: 'Secrets', Item: { sensor: { S: 's-1' }, ts: { N: '1' } } }); // a table it may not write
    await sync7.flushed();

    // The hub applied the granted write and nothing else.
    expect(stateOf(hubDb, 'site-7', 'j7')).toBe('legit');
    expect(stateOf(hubDb, 'site-9', 'j1')).toBe('assigned');
    expect(getOrder(hubDb, 'site-9', 'j666')).toBeUndefined();
    expect(hubDb.context.catalog.find('Secrets')).toBeUndefined();
    await until(() => hub.status().unauthorizedSchemas >= 1, 10_000, 'the Secrets announcement refused');
    const status = hub.status();
    expect(status).toMatchObject({ unauthorizedRecords: 3, refusedBatches: 1, clockRefused: 0 });
    expect(status.tables).not.toContain('Secrets');
    expect(status.rejected.map((r) => r.reason)).toEqual(
      expect.arrayContaining(['unauthorized schema: device van-7 may not write table Secrets', 'refused: unauthorized: device van-7 may not write table Secrets']),
    );
    expect(deadLetters(hubDb).map(({ device, table, reason }) => ({ device, table, reason }))).toEqual(
      expect.arrayContaining([
        { device: 'van-7', table: 'WorkOrders', reason: 'unauthorized: device van-7 may not write WorkOrders partition key "site-9"' },
        { device: 'van-7', table: 'Secrets', reason: 'unauthorized: device van-7 may not write table Secrets' },
      ]),
    );
    expect(deadLetters(hubDb)).toHaveLength(3);

    // The device sees each refusal: the two writes one by one, the table's batch as refused records.
    const seen = sync7.status();
    expect(seen.rejectedWrites).toBe(2);
    expect(seen.lastRejections.map((r) => [r.table, (r.keys.job as { S: string }).S, r.reason, r.restored, r.hubItem])).toEqual([
      ['WorkOrders', 'j1', 'unauthorized: device van-7 may not write WorkOrders partition key "site-9"', false, undefined],
      ['WorkOrders', 'j666', 'unauthorized: device van-7 may not write WorkOrders partition key "site-9"', false, undefined],
    ]);
    expect(seen.refusedRecords).toBe(1);
    expect(seen.shards.find((s) => s.table === 'Secrets')?.refused).toMatchObject({ records: 1, lastMessage: 'unauthorized: device van-7 may not write table Secrets' });
    // Its local copies are left as they are: the hub tells nothing of a site it may not read.
    expect(stateOf(van7.db, 'site-9', 'j1')).toBe('overwritten');

    // site-9's device never receives them: a later hub write of site-9 arrives, and nothing before it did.
    putOrder(hubDb, 'site-9', 'marker', 'after');
    await until(() => stateOf(van9.db, 'site-9', 'marker') === 'after', 10_000, 'the marker at van-9');
    expect(siteContents(van9.db, 'site-9')).toEqual(siteContents(hubDb, 'site-9'));
    expect(stateOf(van9.db, 'site-9', 'j1')).toBe('assigned');
  }, 60_000);

  it('forged batches and announcements: cross-partition, cross-table, ungranted schema and a far-future clock refused; the legitimate records of the batch applied', async () => {
    const broker = await startBroker();
    cleanups.push(() => broker.stop());
    const ns = uniqueNamespace();
    const topics = new Topics(ns);
    const { hub, db: hubDb } = hubAt(cleanups, broker.url, ns, { writeGrants: { 'van-7': { WorkOrders: ['site-7'] } } });
    const acks: SyncAck[] = [];
    const forger = new MqttLink({
      url: broker.url,
      clientId: `forger-${ns}`,
      reconnectPeriodMs: 250,
      subscriptions: [topics.ack('van-7')],
      onMessage: (_topic, payload) => void acks.push(decodeSyncAck(payload)),
      onState: () => undefined,
    });
    cleanups.push(() => forger.close());
    await until(() => forger.online && hub.status().online && hub.status().role === 'active', 10_000, 'forger and hub online');

    const now = Date.now();
    forger.publish(topics.schema('van-7', 'WorkOrders'), schemaOf('WorkOrders', 'site', 'job', now), true);
    forger.publish(topics.schema('van-7', 'Secrets'), schemaOf('Secrets', 'site', 'job', now), true);
    // A shared broker (Mosquitto) keeps retained messages: cleared before the forger goes.
    cleanups.push(async () => {
      for (const table of ['WorkOrders', 'Secrets']) await forger.publishAcknowledged(topics.schema('van-7', table), '', true);
    });
    await until(() => hub.status().tables.includes('WorkOrders') && hub.status().unauthorizedSchemas === 1, 10_000, 'the announcements handled');
    expect(hubDb.context.catalog.find('Secrets')).toBeUndefined();

    const batch = encodeSyncBatch({
      deviceId: 'van-7', incarnation: 'inc-forged', table: 'WorkOrders', tableId: 'tid-forged', shard: 0, parent: undefined,
      records: [
        { seq: 1, bytes: order('site-7', 'j1', 'legit', now) },
        { seq: 2, bytes: order('site-9', 'j1', 'cross-partition', now) },
        { seq: 3, bytes: order('site-7', 'j2', 'from-the-future', now + 10 * DAY_MS) },
        { seq: 4, bytes: order('site-7', 'j3', 'legit-too', now) },
      ],
    });
    forger.publish(topics.batch('van-7', 'WorkOrders', 0), batch);
    await until(() => acks.length === 1, 10_000, 'the ack of the mixed batch');
    const ack = acks[0]!;
    expect(ack).toMatchObject({ table: 'WorkOrders', seq: 4, status: 'applied' });
    expect(ack.rejections?.map((r) => [r.seq, r.reason.replace(/\d+ ms/, 'N ms'), r.hubItem, r.hubVersion])).toEqual([
      [2, 'unauthorized: device van-7 may not write WorkOrders partition key "site-9"', undefined, undefined],
      [3, "clock ahead: the record's clock is N ms ahead of the hub's, over maxClockDriftMs 3600000", undefined, undefined],
    ]);
    expect([stateOf(hubDb, 'site-7', 'j1'), stateOf(hubDb, 'site-7', 'j3')]).toEqual(['legit', 'legit-too']);
    expect(getOrder(hubDb, 'site-9', 'j1')).toBeUndefined();
    expect(getOrder(hubDb, 'site-7', 'j2')).toBeUndefined();
    expect(hub.status().clock.ms).toBeLessThan(Date.now() + 3_600_000); // its clock was not merged either
    expect(hub.status()).toMatchObject({ recordsApplied: 2, unauthorizedRecords: 1, clockRefused: 1, deadLetteredRecords: 2 });

    // A cross-table batch: refused whole, acknowledged 'refused', no table created.
    forger.publish(topics.batch('van-7', 'Secrets', 0), encodeSyncBatch({ deviceId: 'van-7', incarnation: 'inc-forged', table: 'Secrets', tableId: 'tid-s', shard: 0, parent: undefined, records: [{ seq: 1, bytes: order('site-7', 'x', 'secret', now) }] }));
    await until(() => acks.length === 2, 10_000, 'the ack of the cross-table batch');
    expect(acks[1]).toMatchObject({ table: 'Secrets', seq: 1, status: 'refused', message: 'unauthorized: device van-7 may not write table Secrets' });
    expect(hubDb.context.catalog.find('Secrets')).toBeUndefined();

    // Its WorkOrders records on the Secrets topic: rejected unanswered (a broker ACL grants by topic).
    forger.publish(topics.batch('van-7', 'Secrets', 0), batch);
    await until(() => hub.status().rejected.some((r) => r.reason === 'batch for WorkOrders/0 published on the topic of Secrets/0'), 10_000, 'the mismatched batch rejected');

    // The mixed batch again (its ack lost): nothing new applied or counted, the same refusals told.
    forger.publish(topics.batch('van-7', 'WorkOrders', 0), batch);
    await until(() => acks.length === 3, 10_000, 'the ack of the redelivery');
    expect(acks[2]!.rejections?.map((r) => r.seq)).toEqual([2, 3]);
    expect(hub.status()).toMatchObject({ recordsApplied: 2, unauthorizedRecords: 2, clockRefused: 1, duplicateRecords: 4, refusedBatches: 1, unauthorizedSchemas: 1 });
    expect(deadLetters(hubDb).map((l) => [l.table, l.seq, l.reason!.split(':')[0]]).sort()).toEqual([
      ['Secrets', 1, 'unauthorized'],
      ['WorkOrders', 2, 'unauthorized'],
      ['WorkOrders', 3, 'clock ahead'],
    ]);
  }, 60_000);
});

function schemaOf(name: string, hash: string, range: string, announcedAtMs: number): string {
  return JSON.stringify({
    version: 1,
    TableName: name,
    KeySchema: [
      { AttributeName: hash, KeyType: 'HASH' },
      { AttributeName: range, KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: hash, AttributeType: 'S' },
      { AttributeName: range, AttributeType: 'S' },
    ],
    announcedAtMs,
    incarnation: 'inc-forged',
    TableId: `tid-${name}`,
  });
}

function order(site: string, job: string, state: string, ms: number): Uint8Array {
  const keys = { site: { S: site }, job: { S: job } };
  return encodeChangeRecord({ eventName: 'INSERT', keys, newImage: { ...keys, state: { S: state } }, timeMs: ms, hlc: { ms, counter: 0 }, sizeBytes: 30, ttl: false });
}
