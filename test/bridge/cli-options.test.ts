import { createSocket } from 'node:dgram';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeSensorFrame } from '../../src/codec/sensor-frame.js';
import { bridgeStatusCommand, BridgeOptionError, parseBridgeCliOptions, runBridgeCommand } from '../../src/bridge/cli-options.js';
import { readBridgeStatus } from '../../src/bridge/bridge-status.js';
import { tempDir, until } from './fixtures/helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('parseBridgeCliOptions', () => {
  it.each([
    [{ udp: true }, { udp: { host: '0.0.0.0', port: 5780 } }],
    [{ udp: '127.0.0.1:9000' }, { udp: { host: '127.0.0.1', port: 9000 } }],
    [{ udp: '[::1]:9000' }, { udp: { host: '::1', port: 9000 } }],
    [{ serial: ['/dev/ttyUSB0', '/dev/ttyACM0:9600'], serialDriver: 'tty' }, { serial: [{ path: '/dev/ttyUSB0', baudRate: 115200, driver: 'tty' }, { path: '/dev/ttyACM0', baudRate: 9600, driver: 'tty' }] }],
    [{ mqtt: 'mqtt://broker:1883' }, { mqtt: { url: 'mqtt://broker:1883', topic: 'edgetable/v1/sensors/+' } }],
    [
      { udp: '1', table: 'T1', createTable: false, ttlAttribute: 'exp', ttlSeconds: '86400', batchMaxItems: '10', batchMaxDelayMs: '0' },
      { udp: { host: '0.0.0.0', port: 1 }, table: 'T1', createTable: false, ttlAttribute: 'exp', ttlSeconds: 86400, batchMaxItems: 10, batchMaxDelayMs: 0 },
    ],
  ])('%j -> %j', (raw, want) => {
    expect(parseBridgeCliOptions(raw)).toEqual(want);
  });

  it.each([
    [{}, /nothing to listen on/],
    [{ udp: 'x:y' }, /--udp takes \[host:\]port/],
    [{ udp: '70000' }, /--udp port must be an integer in 0\.\.65535/],
    [{ udp: true, ttlSeconds: '5' }, /go together/],
    [{ udp: true, batchMaxItems: '26' }, /--batch-max-items must be an integer in 1\.\.25/],
    [{ serial: ['/dev/x'], serialDriver: 'usb' }, /--serial-driver is serialport or tty/],
    [{ udp: true, mqttTopic: 'a/b' }, /--mqtt-topic needs --mqtt/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseBridgeCliOptions(raw)).toThrow(BridgeOptionError);
    expect(() => parseBridgeCliOptions(raw)).toThrow(message);
  });
});

describe('runBridgeCommand and bridgeStatusCommand', () => {
  it('runs until aborted, and the status command shows the counters from the snapshot', async () => {
    const dir = tempDir('etb-bridge-cli-');
    cleanups.push(dir.cleanup);
    const store = join(dir.path, 'store');
    expect(bridgeStatusCommand(store)).toMatch(/no bridge status/);
    const abort = new AbortController();
    const logs: string[] = [];
    const done = runBridgeCommand(store, { udp: '127.0.0.1:0' }, { signal: abort.signal, log: (l) => logs.push(l) });
    await until(() => readBridgeStatus(store)?.udpPort != null, 10_000, 'the status file');
    const port = readBridgeStatus(store)!.udpPort!;
    const sock = createSocket('udp4');
    await new Promise<void>((r) => sock.send(encodeSensorFrame({ deviceId: 'cli-1', seq: 1, ts: 42, fields: { v: 1 } }), port, '127.0.0.1', () => r()));
    await new Promise<void>((r) => sock.send(new Uint8Array([1, 2, 3, 4, 5, 6]), port, '127.0.0.1', () => r()));
    await until(() => (readBridgeStatus(store)?.totals.received ?? 0) >= 2, 10_000, 'a snapshot with both datagrams');
    sock.close();
    abort.abort();
    await done;
    expect(logs[0]).toMatch(/^bridge: udp 127\.0\.0\.1:\d+ -> table Readings/);
    expect(logs[1]).toBe('bridge: stopped; 2 received, 1 written, 0 duplicate, 1 corrupt');
    const text = bridgeStatusCommand(store);
    expect(text).toMatch(/stopped since/);
    expect(text).toMatch(/totals: 2 received, 1 written, 0 duplicate, 1 corrupt \(crc 1\)/);
    expect(text).toMatch(/^cli-1 +1 +1 +0 +1 +1 /m);
  });
});
