/**
 * Issue 17's security sentences through real Mosquitto: the test makes a CA, a server and
 * per-device client certificates with `openssl`, starts its OWN mosquitto on a free loopback port
 * (TLS listener, `require_certificate true`, `use_identity_as_username true`, the ACL of
 * docs/sync.md "Securing a shared broker", built from the topic root), and checks:
 *   - device van-a's batches reach a hub that admits `van-*` and are applied;
 *   - van-a cannot publish as van-b: the broker drops its batch and schema on van-b's topics, and
 *     the hub never applies or creates anything from them;
 *   - van-a cannot subscribe to van-b's ack and down topics: it receives nothing of what the hub
 *     publishes there, while van-b does and van-a receives its own;
 *   - the hub's login may clear retained schemas, a device's may not.
 * Skipped, saying why, when mosquitto or openssl is not installed. Stops only the mosquitto it started.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHub } from '../../src/hub/start-hub.js';
import { clearRetainedSchemas } from '../../src/hub/clear-schemas.js';
import { encodeChangeRecord } from '../../src/stream/change-record.js';
import { encodeSyncBatch } from '../../src/sync/protocol/sync-batch.js';
import { createReadings, tableContents, tempDb, until, writeReadings, type Cleanup } from '../sync/fixtures.js';
import { deviceAcl, topicRoot } from './harness/device-acl.js';
import { findMosquitto, startTlsMosquitto, type OwnMosquitto } from './harness/own-mosquitto.js';
import { hasOpenssl, makeTestPki, type Pem, type TestPki } from './harness/test-pki.js';

const skipReason = !hasOpenssl() ? 'openssl is not installed' : !findMosquitto() ? 'mosquitto is not installed (Debian package mosquitto)' : undefined;
if (skipReason) console.log(`shared-broker-acl.test.ts skipped: ${skipReason}`);

const ROOT = topicRoot();

describe.skipIf(skipReason !== undefined)('a shared broker: TLS client certificates and per-device ACLs (own Mosquitto)', () => {
  let pkiDir = '';
  let pki: TestPki;
  let broker: OwnMosquitto;
  let url = '';
  const certs = new Map<string, Pem>();
  const cleanups: Cleanup[] = [];
  const cert = (cn: string): Pem => {
    if (!certs.has(cn)) certs.set(cn, pki.client(cn));
    return certs.get(cn)!;
  };

  beforeAll(async () => {
    pkiDir = mkdtempSync(join(tmpdir(), 'edgetable-pki-acl-'));
    pki = makeTestPki(pkiDir);
    broker = await startTlsMosquitto(pki, deviceAcl({ hubUser: 'hub' }), { allowAnonymous: false });
    url = `mqtts://127.0.0.1:${broker.port}`;
  }, 30_000);

  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  afterAll(async () => {
    await broker?.dispose(); // stops the mosquitto this test started, by its pid
    if (pkiDir) rmSync(pkiDir, { recursive: true, force: true });
  });

  /** A raw MQTT client logged in with `cn`'s certificate, connected, closed after the test. */
  async function client(cn: string, extra: IClientOptions = {}): Promise<MqttClient> {
    const c = connect(url, { clientId: `${cn}-raw-${Math.random().toString(36).slice(2, 8)}`, protocolVersion: 4, reconnectPeriod: 0, ca: pki.ca, ...cert(cn), ...extra });
    cleanups.push(() => new Promise<void>((r) => c.end(true, {}, () => r())));
    await new Promise<void>((resolve, reject) => {
      c.once('connect', () => resolve());
      c.once('error', reject);
    });
    return c;
  }

  function hubOn(db = tempDb(cleanups, 'etb-acl-hub-').db) {
    const hub = startHub({ db, url, ca: pki.ca, ...cert('hub'), clientId: `acl-hub-${Math.random().toString(36).slice(2, 8)}`, allowDevices: ['van-*'] });
    cleanups.push(() => hub.stop());
    return { hub, db };
  }

  function forgedBatch(claimedDevice: string): Buffer {
    const item = { sensor: { S: 's-1' }, ts: { N: '1' }, v: { N: '666' }, tag: { S: 'forged' } };
    const now = Date.now();
    const record = encodeChangeRecord({ eventName: 'MODIFY', keys: { sensor: item.sensor, ts: item.ts }, newImage: item, timeMs: now, hlc: { ms: now + 60_000, counter: 0 }, sizeBytes: 40, ttl: false });
    return Buffer.from(encodeSyncBatch({ deviceId: claimedDevice, incarnation: 'forged', table: 'Readings', tableId: 'forged', shard: 0, parent: undefined, records: [{ seq: 1_000_000, bytes: record }] }));
  }

  it("device van-a's batches reach the hub and are applied", async () => {
    const { hub, db: hubDb } = hubOn();
    const device = tempDb(cleanups, 'etb-acl-van-a-');
    createReadings(device.db, 'Readings', 2);
    writeReadings(device.db, 0, 50);
    const sync = await device.db.startSync({ url, deviceId: 'van-a', tables: ['Readings'], ca: pki.ca, ...cert('van-a') });
    cleanups.push(() => sync.stop());
    await until(() => sync.status().recordsAcked === 50, 20_000, 'van-a flushed');
    expect(tableContents(hubDb, 'Readings')).toEqual(tableContents(device.db, 'Readings'));
    expect(hub.status()).toMatchObject({ recordsApplied: 50, rejectedTotal: 0, refusedDeviceMessages: 0 });
  }, 45_000);

  it('van-a cannot publish as van-b: the broker drops it and the hub never applies it', async () => {
    const { hub, db: hubDb } = hubOn();
    const rejections: string[] = [];
    const mallory = await client('van-a');
    await until(() => hub.status().online, 10_000, 'hub online');
    // On van-b's topics: denied by the ACL (MQTT 3.1.1 still acknowledges the publish; it is not delivered).
    await mallory.publishAsync(`${ROOT}/van-b/Evil/schema`, JSON.stringify({ version: 1, TableName: 'Evil', KeySchema: [{ AttributeName: 'k', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'k', AttributeType: 'S' }], announcedAtMs: Date.now() }), { qos: 1, retain: true });
    await mallory.publishAsync(`${ROOT}/van-b/Readings/0`, forgedBatch('van-b'), { qos: 1 });
    // On its own topic, still claiming van-b: delivered (messages of one client arrive in order, so
    // the two above would have arrived first), and rejected by the hub's own check.
    await mallory.publishAsync(`${ROOT}/van-a/Readings/0`, forgedBatch('van-b'), { qos: 1 });
    await until(() => hub.status().rejectedTotal >= 1, 10_000, 'the hub to reject the forged batch on van-a');
    await new Promise((r) => setTimeout(r, 200));
    for (const r of hub.status().rejected) rejections.push(`${r.topic}: ${r.reason}`);
    expect(rejections).toEqual([`${ROOT}/van-a/Readings/0: batch of device van-b published on the topic of device van-a`]);
    expect(hub.status()).toMatchObject({ batchesApplied: 0, recordsApplied: 0 });
    expect(hub.status().tables).not.toContain('Evil');
    expect(hubDb.context.catalog.find('Evil')).toBeUndefined();
    // (Readings may exist, from van-a's own retained schema of the test before; nothing is in it.)
    expect(hubDb.context.catalog.find('Readings') ? tableContents(hubDb, 'Readings') : []).toEqual([]);
  }, 45_000);

  it("van-a cannot subscribe to van-b's ack and down topics; each device receives only its own", async () => {
    const hubClient = await client('hub');
    const a = await client('van-a');
    const b = await client('van-b');
    const received = { a: [] as string[], b: [] as string[] };
    a.on('message', (topic, payload) => received.a.push(`${topic} ${payload.toString()}`));
    b.on('message', (topic, payload) => received.b.push(`${topic} ${payload.toString()}`));
    await a.subscribeAsync([`${ROOT}/van-b/ack`, `${ROOT}/van-b/down`, `${ROOT}/van-b/#`, `${ROOT}/+/ack`, `${ROOT}/van-a/ack`, `${ROOT}/van-a/down`], { qos: 1 });
    await b.subscribeAsync([`${ROOT}/van-b/ack`, `${ROOT}/van-b/down`], { qos: 1 });
    for (const [device, level] of [['van-b', 'ack'], ['van-b', 'down'], ['van-a', 'ack'], ['van-a', 'down']] as const) {
      await hubClient.publishAsync(`${ROOT}/${device}/${level}`, `to ${device}`, { qos: 1 });
    }
    await until(() => received.b.length >= 2 && received.a.length >= 2, 10_000, `deliveries (a: ${received.a.join('; ')}, b: ${received.b.join('; ')})`);
    await new Promise((r) => setTimeout(r, 300));
    expect(received.b.sort()).toEqual([`${ROOT}/van-b/ack to van-b`, `${ROOT}/van-b/down to van-b`]);
    // Mosquitto 2.0 grants every one of van-a's subscriptions in the SUBACK (even to van-b's topics
    // and `+/ack`), and then delivers only the messages van-a may read: the ACL is checked per message.
    expect(received.a.filter((m) => m.includes('van-b'))).toEqual([]);
    expect([...new Set(received.a)].sort()).toEqual([`${ROOT}/van-a/ack to van-a`, `${ROOT}/van-a/down to van-a`]);
  }, 45_000);

  it("only the hub's login clears retained schemas", async () => {
    const device = await client('van-c');
    const topic = `${ROOT}/van-c/Readings/schema`;
    await device.publishAsync(topic, JSON.stringify({ version: 1, TableName: 'Readings', announcedAtMs: Date.now() }), { qos: 1, retain: true });
    const asDevice = await clearRetainedSchemas({ url, ca: pki.ca, ...cert('van-d'), devices: ['van-c'], settleMs: 300 });
    expect(asDevice).toEqual([]); // van-d cannot even read van-c's schema
    const asHub = await clearRetainedSchemas({ url, ca: pki.ca, ...cert('hub'), devices: ['van-c'], settleMs: 300 });
    expect(asHub).toEqual([topic]);
    expect(await clearRetainedSchemas({ url, ca: pki.ca, ...cert('hub'), devices: ['van-c'], settleMs: 300 })).toEqual([]);
  }, 45_000);
});
