import { createSocket } from 'node:dgram';
import { chmodSync, writeFileSync } from 'node:fs';
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
    expect(parseBridgeCliOptions({ ...raw, allowUnauthenticated: true })).toEqual({ ...want, allowUnauthenticated: true });
  });

  it('takes --max-boot-ahead-hours as seconds', () => {
    expect(parseBridgeCliOptions({ udp: true, allowUnauthenticated: true, maxBootAheadHours: '48' }).maxBootAheadSeconds).toBe(48 * 3600);
    expect(parseBridgeCliOptions({ udp: true, allowUnauthenticated: true }).maxBootAheadSeconds).toBeUndefined();
  });

  it('needs --keys or --allow-unauthenticated, and loads the keys file', () => {
    expect(() => parseBridgeCliOptions({ udp: true })).toThrow(/who may write\? give --keys <file>/);
    const dir = tempDir('etb-keys-');
    cleanups.push(dir.cleanup);
    const file = join(dir.path, 'keys');
    writeFileSync(file, '# node keys\nn1 000102030405060708090a0b0c0d0e0f\n\nn2  ' + 'ab'.repeat(32) + '  # the boiler room\n', { mode: 0o600 });
    const parsed = parseBridgeCliOptions({ udp: true, keys: file });
    expect([...parsed.keys!.keys()]).toEqual(['n1', 'n2']);
    expect(Buffer.from(parsed.keys!.get('n1')!).toString('hex')).toBe('000102030405060708090a0b0c0d0e0f');
    expect(parsed.allowUnauthenticated).toBeUndefined();
    expect(parseBridgeCliOptions({ udp: true, keys: file, allowUnauthenticated: true }).allowUnauthenticated).toBe(true);
    const bad = (text: string) => {
      writeFileSync(file, text);
      chmodSync(file, 0o600);
      return () => parseBridgeCliOptions({ udp: true, keys: file });
    };
    expect(bad('n1 0001')).toThrow(/keys:1: the key of n1 must be 32\.\.64 hex digits/);
    expect(bad('n1 ' + 'zz'.repeat(16))).toThrow(/must be 32\.\.64 hex digits/);
    expect(bad('n/1 ' + '00'.repeat(16))).toThrow(/device id "n\/1"/);
    expect(bad(`n1 ${'00'.repeat(16)}\nn1 ${'11'.repeat(16)}`)).toThrow(/keys:2: device id n1 appears twice/);
    expect(bad('n1')).toThrow(/expected "<device-id> <hex key>"/);
    expect(() => parseBridgeCliOptions({ udp: true, keys: join(dir.path, 'absent') })).toThrow(/cannot read keys file/);
  });

  it.each([
    [{}, /nothing to listen on/],
    [{ udp: 'x:y' }, /--udp takes \[host:\]port/],
    [{ udp: '70000' }, /--udp port must be an integer in 0\.\.65535/],
    [{ udp: true, ttlSeconds: '5' }, /go together/],
    [{ udp: true, batchMaxItems: '26' }, /--batch-max-items must be an integer in 1\.\.25/],
    [{ serial: ['/dev/x'], serialDriver: 'usb' }, /--serial-driver is serialport or tty/],
    [{ udp: true, mqttTopic: 'a/b' }, /--mqtt-topic needs --mqtt/],
    [{ udp: true, maxBootAheadHours: '0' }, /--max-boot-ahead-hours must be an integer in 1\.\.876000/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseBridgeCliOptions({ ...raw, allowUnauthenticated: true })).toThrow(BridgeOptionError);
    expect(() => parseBridgeCliOptions({ ...raw, allowUnauthenticated: true })).toThrow(message);
  });
});

describe('runBridgeCommand and bridgeStatusCommand', () => {
  it('runs until aborted, takes only frames signed with the node keys, and the status command shows the counters', async () => {
    const dir = tempDir('etb-bridge-cli-');
    cleanups.push(dir.cleanup);
    const store = join(dir.path, 'store');
    const keysFile = join(dir.path, 'keys');
    const key = Uint8Array.from({ length: 16 }, (_, i) => i);
    writeFileSync(keysFile, `cli-1 ${Buffer.from(key).toString('hex')}\n`, { mode: 0o600 });
    expect(bridgeStatusCommand(store)).toMatch(/no bridge status/);
    const abort = new AbortController();
    const logs: string[] = [];
    const done = runBridgeCommand(store, { udp: '127.0.0.1:0', keys: keysFile }, { signal: abort.signal, log: (l) => logs.push(l) });
    await until(() => readBridgeStatus(store)?.udpPort != null, 10_000, 'the status file');
    const port = readBridgeStatus(store)!.udpPort!;
    const sock = createSocket('udp4');
    const acks: Buffer[] = [];
    sock.on('message', (m) => acks.push(m));
    const send = (b: Uint8Array) => new Promise<void>((r) => sock.send(b, port, '127.0.0.1', () => r()));
    const reading = { deviceId: 'cli-1', boot: 4, seq: 1, ts: 42, fields: { v: 1 } };
    await send(encodeSensorFrame(reading, { key }));
    await send(new Uint8Array([1, 2, 3, 4, 5, 6]));
    await send(encodeSensorFrame({ ...reading, seq: 2, ts: 43 })); // no MAC: unsigned
    await send(encodeSensorFrame({ ...reading, seq: 3, ts: 44 }, { key: key.map((b) => b ^ 1) })); // wrong key
    await send(encodeSensorFrame({ ...reading, deviceId: 'intruder', ts: 45 })); // no key on file
    await until(() => (readBridgeStatus(store)?.totals.received ?? 0) >= 5, 10_000, 'a snapshot with all datagrams');
    await until(() => acks.length >= 1, 10_000, 'the ack of the signed frame');
    sock.close();
    abort.abort();
    await done;
    expect(logs[0]).toMatch(/^bridge: udp 127\.0\.0\.1:\d+ -> table Readings \(1 node keys\)/);
    expect(logs[1]).toBe('bridge: stopped; 5 received, 1 written, 0 duplicate, 1 corrupt, 3 refused');
    const text = bridgeStatusCommand(store);
    expect(text).toMatch(/stopped since/);
    expect(text).toMatch(/totals: 5 received, 1 written, 0 duplicate, 1 corrupt \(crc 1\), 3 refused \(unauthenticated 1, unsigned 1, badMac 1\)/);
    expect(text).toMatch(/^cli-1 +1 +1 +0 +1 +1 +4 /m);
    expect(text).not.toMatch(/intruder/);
    expect(acks).toHaveLength(1); // refused frames are never acknowledged
  });
});
