/**
 * Issue 17's down direction through real Mosquitto, over TLS, with per-device ACLs: the test makes
 * a CA, a server and client certificates with `openssl` (CN = login = device id, `hub` for the
 * hub), starts its OWN mosquitto on a free loopback port (`require_certificate true`,
 * `use_identity_as_username true`) with the ACL of docs/sync.md "Securing a shared broker" built
 * from the Topics of a two-level namespace (harness/device-acl.ts), and checks:
 *   - a write at the hub (AWS SDK on the hub's DynamoDB API) to site-7 reaches van-a, subscribed
 *     to WorkOrders 'site-7' both ways, and not van-b ('site-9'); van-a's write reaches the hub and
 *     not van-b;
 *   - van-a's login receives nothing of what the hub sends van-b (its raw subscriptions to van-b's
 *     down topics are granted and deliver nothing), and cannot publish a down subscription or a
 *     down ack as van-b: the broker drops them;
 *   - the hub's subscription permissions refuse van-a subscribing to site-9, and van-a's status says so;
 *   - the hub's login clears van-a's retained schema in the namespace.
 * Skipped, saying why, when mosquitto or openssl is not installed. Stops only the mosquitto it started.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { connect, type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clearRetainedSchemas } from '../../src/hub/clear-schemas.js';
import { encodeDownAck, encodeSubscription } from '../../src/sync/protocol/down-messages.js';
import { Topics } from '../../src/sync/protocol/topics.js';
import { tempDb, until, type Cleanup } from '../sync/fixtures.js';
import { createWorkOrders, deviceSync, getOrder, hubAt, putOrder, siteContents } from '../sync/down-fixtures.js';
import { deviceAcl } from './harness/device-acl.js';
import { findMosquitto, startTlsMosquitto, type OwnMosquitto } from './harness/own-mosquitto.js';
import { hasOpenssl, makeTestPki, type Pem, type TestPki } from './harness/test-pki.js';

const skipReason = !hasOpenssl() ? 'openssl is not installed' : !findMosquitto() ? 'mosquitto is not installed (Debian package mosquitto)' : undefined;
if (skipReason) console.log(`shared-broker-acl-down.test.ts skipped: ${skipReason}`);

/** Two levels, so the ACL and every topic are checked with a namespace that is not the default root. */
const NS = 'acme/field';
const topics = new Topics(NS);
const credentials = { accessKeyId: 'back-office', secretAccessKey: 'back-office' };
const SITE_7 = { name: 'WorkOrders', direction: 'both' as const, partitionKeys: ['site-7'] };
const SITE_9 = { name: 'WorkOrders', direction: 'both' as const, partitionKeys: ['site-9'] };

describe.skipIf(skipReason !== undefined)('the down direction on a shared broker: TLS client certificates and per-device ACLs (own Mosquitto)', () => {
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
  const tls = (cn: string) => ({ ca: pki.ca, ...cert(cn) });

  beforeAll(async () => {
    pkiDir = mkdtempSync(join(tmpdir(), 'edgetable-pki-acl-down-'));
    pki = makeTestPki(pkiDir);
    broker = await startTlsMosquitto(pki, deviceAcl({ namespace: NS, hubUser: 'hub' }), { allowAnonymous: false });
    url = `mqtts://127.0.0.1:${broker.port}`;
  }, 30_000);

  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  afterAll(async () => {
    await broker?.dispose(); // stops the mosquitto this test started, by its pid
    if (pkiDir) rmSync(pkiDir, { recursive: true, force: true });
  });

  /** A hub with its TLS identity, the DynamoDB API on a free port, and per-device subscription permissions. */
  async function hubWithApi() {
    const { hub, db } = hubAt(cleanups, url, NS, {
      ...tls('hub'),
      port: 0,
      allowDevices: ['van-*'],
      subscriptions: { 'van-a': { WorkOrders: ['site-7'] }, 'van-b': { WorkOrders: ['site-9'] } },
    });
    createWorkOrders(db);
    await hub.ready;
    const sdk = new DynamoDBClient({ region: 'us-east-1', credentials, endpoint: `http://127.0.0.1:${hub.status().api!.port}`, maxAttempts: 1 });
    cleanups.push(() => sdk.destroy());
    const put = (site: string, job: string, state: string) => sdk.send(new PutItemCommand({ TableName: 'WorkOrders', Item: { site: { S: site }, job: { S: job }, state: { S: state } } }));
    const get = async (site: string, job: string) => (await sdk.send(new GetItemCommand({ TableName: 'WorkOrders', Key: { site: { S: site }, job: { S: job } }, ConsistentRead: true }))).Item;
    return { hub, db, put, get };
  }

  /** A raw MQTT client logged in with `cn`'s certificate, connected, closed after the test. */
  async function client(cn: string): Promise<MqttClient> {
    const c = connect(url, { clientId: `${cn}-raw-${Math.random().toString(36).slice(2, 8)}`, protocolVersion: 4, reconnectPeriod: 0, ...tls(cn) });
    cleanups.push(() => new Promise<void>((r) => c.end(true, {}, () => r())));
    await new Promise<void>((resolve, reject) => {
      c.once('connect', () => resolve());
      c.once('error', reject);
    });
    return c;
  }

  it("a hub write to site-7 reaches van-a and not van-b; van-a's write reaches the hub and not van-b", async () => {
    const { hub, db: hubDb, put, get } = await hubWithApi();
    await put('site-7', 'j1', 'assigned');
    await put('site-9', 'j2', 'assigned');
    const a = tempDb(cleanups, 'etb-acl-down-a-');
    const b = tempDb(cleanups, 'etb-acl-down-b-');
    const sa = await deviceSync(cleanups, a.db, url, NS, 'van-a', [SITE_7], tls('van-a'));
    const sb = await deviceSync(cleanups, b.db, url, NS, 'van-b', [SITE_9], tls('van-b'));
    await Promise.all([sa.caughtUp(), sb.caughtUp()]);
    expect(siteContents(a.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(b.db, 'site-9')).toEqual(siteContents(hubDb, 'site-9'));

    // The back office assigns a job at site 7 through the hub's DynamoDB API.
    await put('site-7', 'j3', 'assigned');
    await until(() => getOrder(a.db, 'site-7', 'j3') !== undefined, 10_000, 'the hub write at van-a');
    // The technician of van-a updates it offline-first; it reaches the hub.
    putOrder(a.db, 'site-7', 'j3', 'done');
    putOrder(a.db, 'site-7', 'a1', 'created-on-van-a');
    await sa.flushed();
    expect((await get('site-7', 'j3'))?.['state']).toEqual({ S: 'done' });
    expect(await get('site-7', 'a1')).toBeDefined();
    await new Promise((r) => setTimeout(r, 300)); // time for anything misrouted to arrive
    expect(siteContents(b.db, 'site-7')).toEqual([]);
    expect(siteContents(a.db, 'site-9')).toEqual([]);
    expect(siteContents(a.db, 'site-7')).toEqual(siteContents(hubDb, 'site-7'));
    expect(siteContents(b.db, 'site-9')).toEqual(siteContents(hubDb, 'site-9'));
    expect(hub.status().down?.subscriptions.map((s) => `${s.device}:${s.state}`).sort()).toEqual(['van-a:delta', 'van-b:delta']);
    expect(hub.status()).toMatchObject({ rejectedTotal: 0, refusedDeviceMessages: 0 });
  }, 60_000);

  it("van-a's login receives none of van-b's down messages and cannot publish van-b's down subscription or acks", async () => {
    const { put } = await hubWithApi();
    const b = tempDb(cleanups, 'etb-acl-down-b-');
    const sb = await deviceSync(cleanups, b.db, url, NS, 'van-b', [SITE_9], tls('van-b'));
    await sb.caughtUp();

    // A watcher with the hub's login sees every device's down control messages as they reach the broker's subscribers.
    const watcher = await client('hub');
    const watched: string[] = [];
    watcher.on('message', (topic, payload) => watched.push(`${topic} ${Buffer.from(payload).toString('base64')}`));
    await watcher.subscribeAsync(topics.downControlSubscription, { qos: 1 });

    const mallory = await client('van-a');
    const stolen: string[] = [];
    mallory.on('message', (topic) => stolen.push(topic));
    // Mosquitto 2.0 grants these in the SUBACK and then delivers only what van-a may read, per message.
    await mallory.subscribeAsync([topics.down('van-b'), topics.downSubscribe('van-b'), topics.downAck('van-b'), topics.down('+'), `${topics.root}/#`], { qos: 1 });

    // Forged: a retained subscription of van-b to site-7, and an ack of van-b's messages. Dropped by the ACL.
    const forgedSub = encodeSubscription({ incarnation: 'forged', tables: [{ table: 'WorkOrders', direction: 'down', partitionKeys: [{ type: 'S', value: 'site-7' }] }] });
    const forgedAck = encodeDownAck({ incarnation: 'forged', table: 'WorkOrders', id: 'forged', status: 'applied', message: '' });
    await mallory.publishAsync(topics.downSubscribe('van-b'), Buffer.from(forgedSub), { qos: 1, retain: true });
    await mallory.publishAsync(topics.downAck('van-b'), Buffer.from(forgedAck), { qos: 1 });
    // On its own topic: delivered, and after the two above would have been (one client's messages keep their order).
    await mallory.publishAsync(topics.downAck('van-a'), Buffer.from('marker'), { qos: 1 });
    await until(() => watched.some((w) => w.startsWith(`${topics.downAck('van-a')} `)), 10_000, "the watcher to receive van-a's marker");
    const forged = [Buffer.from(forgedSub).toString('base64'), Buffer.from(forgedAck).toString('base64')];
    expect(watched.filter((w) => forged.some((f) => w.endsWith(` ${f}`)))).toEqual([]);
    expect(watched.filter((w) => w.startsWith(`${topics.downSubscribe('van-b')} `)).length).toBeGreaterThan(0); // van-b's own, retained

    // A hub write to van-b's partition: van-b receives it, van-a's login nothing.
    await put('site-9', 'j9', 'assigned');
    await until(() => getOrder(b.db, 'site-9', 'j9') !== undefined, 10_000, 'the hub write at van-b');
    await new Promise((r) => setTimeout(r, 300));
    expect(stolen).toEqual([]);
    // Had the forged subscription got through, the hub would now serve van-b site-7 (and no longer site-9).
    expect(sb.status().down![0]).toMatchObject({ table: 'WorkOrders', state: 'delta', partitionKeys: ['site-9'] });
    expect(siteContents(b.db, 'site-7')).toEqual([]);
  }, 60_000);

  it("the hub refuses van-a's subscription to site-9, and van-a's status says so", async () => {
    const { hub, put } = await hubWithApi();
    await put('site-9', 'j2', 'assigned');
    const a = tempDb(cleanups, 'etb-acl-down-greedy-');
    const sa = await deviceSync(cleanups, a.db, url, NS, 'van-a', [SITE_9], tls('van-a'));
    await until(() => sa.status().down?.[0]?.state === 'refused', 10_000, 'the refusal');
    expect(sa.status().down![0]!.lastMessage).toBe('device van-a is not allowed to subscribe to WorkOrders partitions site-9');
    expect(sa.status().lastError).toMatch(/refused the subscription to WorkOrders/);
    // (van-b's subscription, retained on the broker by the tests before, is served too.)
    expect(hub.status().down?.subscriptions.filter((s) => s.device === 'van-a')).toEqual([expect.objectContaining({ table: 'WorkOrders', state: 'refused' })]);
    expect(a.db.context.catalog.find('WorkOrders')).toBeUndefined();
    expect(hub.authorizeSubscription('van-a', 'WorkOrders', ['site-7'])).toBe(true);
  }, 60_000);

  it("the hub's login clears van-a's retained schema in the namespace; van-b's login cannot", async () => {
    await hubWithApi();
    const a = tempDb(cleanups, 'etb-acl-down-schema-');
    createWorkOrders(a.db);
    const sa = await deviceSync(cleanups, a.db, url, NS, 'van-a', [SITE_7], tls('van-a'));
    await sa.caughtUp();
    await sa.stop();
    const schema = topics.schema('van-a', 'WorkOrders');
    expect(await clearRetainedSchemas({ url, namespace: NS, ...tls('van-b'), devices: ['van-a'], settleMs: 300 })).toEqual([]);
    expect(await clearRetainedSchemas({ url, namespace: NS, ...tls('hub'), devices: ['van-a'], settleMs: 300 })).toEqual([schema]);
    expect(await clearRetainedSchemas({ url, namespace: NS, ...tls('hub'), devices: ['van-a'], settleMs: 300 })).toEqual([]);
  }, 60_000);
});
