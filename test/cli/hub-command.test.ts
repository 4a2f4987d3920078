/** `edgetable hub` flags of the hub's bounds (docs/sync.md, "Version horizon") and of shared brokers ("Securing a shared broker"). */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
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
