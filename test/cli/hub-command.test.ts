/** `edgetable hub` flags of the hub's bounds (docs/sync.md, "Version horizon") and of shared brokers ("Securing a shared broker"). */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openWritesWarning } from '../../src/cli/commands/hub.js';
import { open } from '../../src/edgetable.js';
import { startHub } from '../../src/hub/start-hub.js';
import { MqttLink } from '../../src/sync/mqtt-link.js';
import { schemaTopic, Topics } from '../../src/sync/protocol/topics.js';
import { startBroker } from '../sync/broker.js';
import { until } from '../sync/fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('edgetable hub', () => {
  it('refuses a version horizon that is not a positive number of days, before connecting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-hub-'));
    dirs.push(dir);
    for (const bad of ['0', '-3', 'soon']) {
      let err = '';
      const code = await main(['hub', '--path', dir, '--url', 'mqtt://127.0.0.1:9', '--version-horizon-days', bad], { out: () => undefined, err: (t) => void (err += t), errIsTty: false });
      expect({ code, err }).toEqual({ code: 2, err: `error: --version-horizon-days must be a positive number, not ${bad}\n` });
    }
  });
});

describe('edgetable hub on a shared broker', () => {
  const runHub = async (args: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-hub-'));
    dirs.push(dir);
    let err = '';
    let out = '';
    const code = await main(['hub', '--path', dir, ...args], { out: (t) => void (out += t), err: (t) => void (err += t), errIsTty: false });
    return { code, out, err, dir };
  };

  it('refuses a bad device pattern or subscription map as a usage error naming the flag, before connecting', async () => {
    expect(await runHub(['--url', 'mqtt://127.0.0.1:9', '--allow-devices', 'pump-*,van/3'])).toMatchObject({
      code: 2,
      err: 'error: --allow-devices: invalid device pattern "van/3": 1 to 128 of [a-zA-Z0-9_.-], with * for any run of characters\n',
    });
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-subs-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'subs.json'), '{"van-*": {"WorkOrders": "site-7"}}');
    writeFileSync(join(dir, 'broken.json'), '{"van-*": ');
    const bad = await runHub(['--url', 'mqtt://127.0.0.1:9', '--subscriptions-file', join(dir, 'subs.json')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(`error: --subscriptions-file ${join(dir, 'subs.json')}: subscriptions["van-*"]["WorkOrders"] must be a list of partition key values or "*"\n`);
    const broken = await runHub(['--url', 'mqtt://127.0.0.1:9', '--subscriptions-file', join(dir, 'broken.json')]);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(/^error: --subscriptions-file .*broken\.json is not valid JSON: /);
    expect(await runHub(['--url', 'mqtt://127.0.0.1:9', '--schema-max-age-hours', '0'])).toMatchObject({ code: 2, err: 'error: --schema-max-age-hours must be a positive number, not 0\n' });
  });

  it('--clear-schemas --device clears the matching retained schemas and exits, without opening the store', async () => {
    const broker = await startBroker();
    try {
      const link = new MqttLink({ url: broker.url, clientId: 'cli-retainer', reconnectPeriodMs: 250, subscriptions: [], onMessage: () => undefined, onState: () => undefined });
      await until(() => link.online, 10_000, 'online');
      for (const device of ['gone-1', 'gone-2', 'pump-1']) await link.publishAcknowledged(schemaTopic(device, 'Readings'), '{"version":1,"TableName":"Readings"}', true);
      await link.close();
      const { code, out, err, dir } = await runHub(['--url', broker.url, '--clear-schemas', '--device', 'gone-*']);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      expect(out).toBe('cleared edgetable/v1/gone-1/Readings/schema\ncleared edgetable/v1/gone-2/Readings/schema\n2 retained schema messages cleared\n');
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await broker.stop();
    }
  }, 30_000);

  it('--clear-schemas --namespace clears that deployment\'s retained schemas only', async () => {
    const broker = await startBroker();
    try {
      const link = new MqttLink({ url: broker.url, clientId: 'cli-retainer-ns', reconnectPeriodMs: 250, subscriptions: [], onMessage: () => undefined, onState: () => undefined });
      await until(() => link.online, 10_000, 'online');
      await link.publishAcknowledged(new Topics('acme/field').schema('gone-1', 'Readings'), '{"version":1,"TableName":"Readings"}', true);
      await link.publishAcknowledged(schemaTopic('gone-1', 'Readings'), '{"version":1,"TableName":"Readings"}', true);
      await link.close();
      const { code, out, err } = await runHub(['--url', broker.url, '--clear-schemas', '--namespace', 'acme/field']);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      expect(out).toBe('cleared acme/field/v1/gone-1/Readings/schema\n1 retained schema message cleared\n');
      // The default namespace's schema is still there: a run without --namespace clears it.
      expect((await runHub(['--url', broker.url, '--clear-schemas'])).out).toBe('cleared edgetable/v1/gone-1/Readings/schema\n1 retained schema message cleared\n');
    } finally {
      await broker.stop();
    }
  }, 30_000);

  it('refuses an invalid --namespace before connecting', async () => {
    for (const args of [['--clear-schemas'], []]) {
      expect(await runHub(['--url', 'mqtt://127.0.0.1:9', '--namespace', 'acme/+', ...args])).toMatchObject({
        code: 2,
        err: `error: --namespace must be 1 to 8 levels of 1-64 [a-zA-Z0-9_.-] separated by '/', not "acme/+"\n`,
      });
    }
  });
});

describe('edgetable hub beside another hub on its namespace', () => {
  it('stands by: says on stderr which hub consumes (id, instance, pid, host, start, store), lists both hubs, and stops cleanly', async () => {
    const broker = await startBroker();
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-hub-'));
    dirs.push(dir);
    const ns = `acme-${process.pid}-${Date.now()}`; // its own, on a shared broker (MQTT_URL)
    const first = startHub({ path: join(dir, 'first'), url: broker.url, namespace: ns, presenceSettleMs: 50 });
    const stop = new AbortController();
    let err = '';
    try {
      await until(() => first.status().role === 'active', 10_000, 'the first hub consuming');
      const self = first.status().hubs[0]!;
      const running = main(['hub', '--path', join(dir, 'second'), '--url', broker.url, '--namespace', ns], { out: () => undefined, err: (t) => void (err += t), errIsTty: false, signal: stop.signal });
      await until(() => err.includes('hubs on the namespace'), 10_000, 'the hubs line');
      const lines = err.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { level: string; msg: string });
      const standby = lines.find((l) => l.msg.includes('is standby'))!;
      expect(standby.level).toBe('error');
      expect(standby.msg).toContain(`hub hub on namespace ${ns} is standby: another hub consumes this namespace: hub 'hub' (instance ${self.instance}, pid ${self.pid} on ${self.host}, started ${new Date(self.startedAt).toISOString()}, store incarnation ${self.incarnation})`);
      expect(lines.find((l) => l.msg.includes('hubs on the namespace'))!.msg).toMatch(new RegExp(`^hub: standby; hubs on the namespace: 'hub' \\w+ pid ${process.pid} on \\S+ standby \\(this hub\\), 'hub' ${self.instance} pid ${process.pid} on \\S+ active$`));
      stop.abort();
      expect(await running).toBe(0);
    } finally {
      stop.abort();
      await first.stop();
      await broker.stop();
    }
  }, 30_000);
});

describe('edgetable hub --write-grants-file', () => {
  it('refuses a bad grants file as a usage error naming the flag, before connecting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-grants-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'grants.json'), '{"van-*": {"WorkOrders": "site-7"}}');
    writeFileSync(join(dir, 'broken.json'), '{"van-*": ');
    const run = async (file: string) => {
      let err = '';
      const code = await main(['hub', '--path', join(dir, 'store'), '--url', 'mqtt://127.0.0.1:9', '--write-grants-file', file], { out: () => undefined, err: (t) => void (err += t), errIsTty: false });
      return { code, err };
    };
    expect(await run(join(dir, 'grants.json'))).toEqual({ code: 2, err: `error: --write-grants-file ${join(dir, 'grants.json')}: writeGrants["van-*"]["WorkOrders"] must be a list of partition key values or "*"\n` });
    expect((await run(join(dir, 'broken.json'))).err).toMatch(/^error: --write-grants-file .*broken\.json is not valid JSON: /);
    expect((await run(join(dir, 'missing.json'))).err).toMatch(/^error: --write-grants-file: cannot read .*missing\.json: /);
    expect(readdirSync(dir).sort()).toEqual(['broken.json', 'grants.json']);
  });

  it('warns of a broker other machines reach when nothing restricts writes', () => {
    expect(openWritesWarning('mqtts://broker.example:8883', {})).toBe(
      'no write grants: every device that can publish on broker.example may write, overwrite and create every table of this hub; give --write-grants-file FILE (or --subscriptions-file FILE) (docs/security.md)',
    );
    expect(openWritesWarning('mqtt://10.0.0.5:1883', {})).toMatch(/^no write grants: every device that can publish on 10\.0\.0\.5 /);
    expect(openWritesWarning('mqtt://127.0.0.1:1883', {})).toBeUndefined();
    expect(openWritesWarning('mqtt://localhost:1883', {})).toBeUndefined();
    expect(openWritesWarning('mqtts://broker.example:8883', { writeGrants: { 'van-*': { WorkOrders: '*' } } })).toBeUndefined();
    expect(openWritesWarning('mqtts://broker.example:8883', { subscriptions: { 'van-*': { WorkOrders: '*' } } })).toBeUndefined();
  });

  it('a running hub creates only the tables the grants name, and logs the refused announcement', async () => {
    const broker = await startBroker();
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-grants-'));
    dirs.push(dir);
    const ns = `grants-${process.pid}-${Date.now()}`; // its own, on a shared broker (MQTT_URL)
    const topics = new Topics(ns);
    writeFileSync(join(dir, 'grants.json'), JSON.stringify({ 'van-*': { Granted: ['site-7'] } }));
    const stop = new AbortController();
    let err = '';
    const link = new MqttLink({ url: broker.url, clientId: `cli-forger-${ns}`, reconnectPeriodMs: 250, subscriptions: [], onMessage: () => undefined, onState: () => undefined });
    try {
      const running = main(['hub', '--path', join(dir, 'store'), '--url', broker.url, '--namespace', ns, '--write-grants-file', join(dir, 'grants.json')], { out: () => undefined, err: (t) => void (err += t), errIsTty: false, signal: stop.signal });
      await until(() => link.online && err.includes('hubs on the namespace'), 10_000, 'the hub and the forger online');
      for (const table of ['Granted', 'Ungranted']) await link.publishAcknowledged(topics.schema('van-1', table), schemaOf(table), true);
      await until(() => err.includes('unauthorized schema'), 10_000, 'the refused announcement logged');
      const refused = err.split('\n').filter((l) => l.includes('unauthorized schema')).map((l) => JSON.parse(l) as { level: string; msg: string });
      expect(refused).toEqual([expect.objectContaining({ level: 'warn', msg: `rejected batch on ${topics.schema('van-1', 'Ungranted')}: unauthorized schema: device van-1 may not write table Ungranted` })]);
      stop.abort();
      expect(await running).toBe(0);
      const db = open({ path: join(dir, 'store') });
      try {
        expect(db.context.catalog.find('Granted')).toBeDefined();
        expect(db.context.catalog.find('Ungranted')).toBeUndefined();
      } finally {
        db.close();
      }
      expect(err).not.toContain('no write grants');
    } finally {
      stop.abort();
      for (const table of ['Granted', 'Ungranted']) await link.publishAcknowledged(topics.schema('van-1', table), '', true).catch(() => undefined);
      await link.close();
      await broker.stop();
    }
  }, 30_000);
});

function schemaOf(name: string): string {
  return JSON.stringify({
    version: 1,
    TableName: name,
    KeySchema: [{ AttributeName: 'site', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'site', AttributeType: 'S' }],
    announcedAtMs: Date.now(),
  });
}
