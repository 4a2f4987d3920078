import { createServer, type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import { connectAsync } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeAck } from '../../src/codec/sensor-frame.js';
import { open } from '../../src/edgetable.js';
import { ackTopicFor } from '../../src/bridge/mqtt-transport.js';
import { startBridge } from '../../src/bridge/start-bridge.js';
import { buildFirmwareTools, cFrame, scanAll, tempDir, until } from './fixtures/helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** MQTT_URL when set (CI's Mosquitto), else an embedded aedes broker on a free loopback port. */
async function brokerUrl(): Promise<string> {
  if (process.env.MQTT_URL) return process.env.MQTT_URL;
  const broker = await Aedes.createBroker();
  const server = createServer(broker.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => broker.close(() => server.close(() => r()))));
  return `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('MQTT transport', () => {
  it('derives the ack topic', () => {
    expect(ackTopicFor('edgetable/v1/sensors/n1')).toBe('edgetable/v1/sensors/n1/ack');
    expect(ackTopicFor('x', 'reply/here')).toBe('reply/here');
  });

  it('writes frames published to the topic and acks on <topic>/ack, ignoring its own acks', async () => {
    buildFirmwareTools();
    const url = await brokerUrl();
    const dir = tempDir('etb-bridge-mqtt-');
    cleanups.push(dir.cleanup);
    const db = open({ path: dir.path });
    cleanups.push(() => db.close());
    const topic = `edgetable/v1/sensors-${process.pid}/#`;
    const bridge = await startBridge({ db, mqtt: { url, topic }, allowUnauthenticated: true });
    cleanups.push(() => bridge.stop());

    const node = await connectAsync(url);
    cleanups.push(() => node.endAsync());
    const frameTopic = `edgetable/v1/sensors-${process.pid}/mq-1`;
    let acked = -1;
    node.on('message', (t, payload) => {
      if (t === `${frameTopic}/ack`) acked = decodeAck(payload).seq;
    });
    await node.subscribeAsync(`${frameTopic}/ack`, { qos: 1 });
    for (let seq = 1; seq <= 10; seq++) await node.publishAsync(frameTopic, Buffer.from(cFrame(['mq-1', String(seq), String(1000 + seq), 'v=1'])), { qos: 1 });
    await until(() => acked === 10, 10_000, 'ack 10 over MQTT');
    await bridge.stop();
    expect(scanAll(db, 'Readings').map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The bridge's own acks match `#` but are not counted as frames.
    expect(bridge.status().totals).toMatchObject({ received: 10, written: 10, corrupt: 0 });
  });
});
