import { createSocket, type Socket } from 'node:dgram';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { crc32, decodeAck, encodeSensorFrame } from '../../src/codec/sensor-frame.js';
import { open, type Edgetable } from '../../src/edgetable.js';
import { readBridgeStatus } from '../../src/bridge/bridge-status.js';
import { startBridge, type Bridge } from '../../src/bridge/start-bridge.js';
import { loadDedupState } from '../../src/bridge/state-table.js';
import { captureLog } from '../log/capture-log.js';
import {
  UDP_SENDER,
  buildFirmwareTools,
  cFrame,
  runProgram,
  scanAll,
  spawnBridgeProcess,
  tempDir,
  until,
  waitForExit,
} from './fixtures/helpers.js';

beforeAll(() => buildFirmwareTools());

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.restoreAllMocks();
});

async function startInProcess(options: Partial<Parameters<typeof startBridge>[0]> = {}): Promise<{ db: Edgetable; bridge: Bridge; path: string }> {
  const dir = tempDir('etb-bridge-');
  cleanups.push(dir.cleanup);
  const db = open({ path: dir.path });
  cleanups.push(() => db.close());
  const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, allowUnauthenticated: true, ...options });
  cleanups.push(() => bridge.stop());
  return { db, bridge, path: dir.path };
}

/** Each reading of a device exactly once, seq 1..n, and ts = first ts + seq - 1 as udp-sender writes it. */
function expectOnceEach(readings: { deviceId: string; ts: number; seq: number }[], deviceId: string, n: number): void {
  const mine = readings.filter((r) => r.deviceId === deviceId);
  expect(mine).toHaveLength(n);
  const seqs = mine.map((r) => r.seq).sort((a, b) => a - b);
  expect(seqs).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  const t0 = mine.find((r) => r.seq === 1)!.ts - 1;
  for (const r of mine) expect(r.ts).toBe(t0 + r.seq);
}

describe('startBridge over UDP', () => {
  it('ingests 500 readings from the C udp-sender exactly once each, then acks them all', async () => {
    const { db, bridge, path } = await startInProcess();
    const r = await runProgram(UDP_SENDER, ['127.0.0.1', String(bridge.udpPort), 'node-1', '500', '30000']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await bridge.stop();

    const readings = scanAll(db, 'Readings');
    expectOnceEach(readings, 'node-1', 500);
    const one = readings.find((x) => x.seq === 7)!.item;
    expect(one.humidity).toEqual({ N: String(40 + (7 % 20)) });
    expect(one.temperature).toEqual({ N: String(20 + (7 % 100) / 8) });

    const s = bridge.status();
    expect(s.totals.written).toBe(500);
    expect(s.totals.corrupt).toBe(0);
    expect(s.totals.received).toBe(s.totals.written + s.totals.duplicate);
    expect(s.devices['node-1']).toMatchObject({ written: 500, acked: 500, lastSeq: 500 });
    expect(loadDedupState(db, '_bridge', 'Readings', 'node-1')).toEqual({ boot: 1, settled: 500, durable: [] });
    // The snapshot another process reads.
    expect(readBridgeStatus(path)).toMatchObject({ running: false, table: 'Readings', totals: { written: 500 } });
  });

  it('writes exactly the valid readings of a hostile stream (corrupt, truncated, oversized, replayed, out of order)', async () => {
    const log = captureLog();
    cleanups.push(async () => log.restore());
    const { db, bridge } = await startInProcess({ ttlAttribute: 'expiresAt', ttlSeconds: 3600 });
    const N = 30;
    const T0 = 1_700_000_000_000;
    // base 1: the node still holds every seq, so a late low seq must be written, not given up.
    const frames = Array.from({ length: N }, (_, i) => cFrame(['--base', '1', 'node-h', String(i + 1), String(T0 + i * 1000), `t:d=${20 + i / 4}`, `st:s=s${i}`]));

    const flipped = (f: Uint8Array, at: number, bit: number) => {
      const c = f.slice();
      c[at]! ^= bit;
      return c;
    };
    const withCrc = (body: Uint8Array) => {
      const out = new Uint8Array(body.length + 4);
      out.set(body);
      new DataView(out.buffer).setUint32(body.length, crc32(body));
      return out;
    };
    const f5 = frames[4]!;
    const versionThree = (() => {
      const body = f5.slice(0, f5.length - 4);
      expect([...body.subarray(0, 3)]).toEqual([0xa7, 0x00, 0x02]);
      body[2] = 0x03;
      return withCrc(body);
    })();
    const baseZero = (() => {
      const body = f5.slice(0, f5.length - 4);
      expect([...body.subarray(body.length - 4)]).toEqual([0x05, 0x01, 0x07, 0x01]);
      body[body.length - 3] = 0x00; // base 0 is outside 1..seq
      return withCrc(body);
    })();

    const hostile: [Uint8Array, string][] = [
      [flipped(frames[0]!, frames[0]!.length - 1, 0x10), 'crc'], // in the CRC
      [flipped(frames[1]!, frames[1]!.length - 5, 0x02), 'crc'], // base 1 -> 3 in the CBOR
      [flipped(frames[2]!, 10, 0x01), 'crc'],
      [frames[3]!.subarray(0, frames[3]!.length - 2), 'truncated'], // ends inside the CRC
      [frames[3]!.subarray(0, 20), 'truncated'], // ends inside the CBOR
      [frames[3]!.subarray(0, 3), 'truncated'],
      [new Uint8Array(600).fill(0xa6), 'oversized'],
      [versionThree, 'version'],
      [baseZero, 'malformed'],
    ];

    const client = await udpClient();
    cleanups.push(() => new Promise<void>((r) => client.socket.close(() => r())));
    const send = (b: Uint8Array) => client.send(b, bridge.udpPort!);

    // Round 1: everything but seq 3, newest first, with hostile datagrams and immediate replays between.
    const order = Array.from({ length: N }, (_, i) => N - i).filter((s) => s !== 3);
    let valid = 0;
    for (const [k, seq] of order.entries()) {
      await send(frames[seq - 1]!);
      valid++;
      const bad = hostile[k % hostile.length]!;
      if (k < hostile.length) await send(bad[0]);
      if (seq % 7 === 0) {
        await send(frames[seq - 1]!);
        valid++;
      }
    }
    await until(() => client.lastAck('node-h') === 2, 5000, 'ack 2 (seq 3 missing)');
    expect(scanAll(db, 'Readings')).toHaveLength(N - 1);

    // Round 2: replays of written frames, then the missing low seq, then replays again.
    for (const seq of [30, 1, 2, 17]) {
      await send(frames[seq - 1]!);
      valid++;
    }
    await send(frames[2]!);
    valid++;
    await until(() => client.lastAck('node-h') === N, 5000, `ack ${N}`);
    for (const seq of [3, 3, 29]) {
      await send(frames[seq - 1]!);
      valid++;
    }
    await until(() => bridge.status().totals.received === valid + hostile.length, 5000, 'every datagram counted');
    await bridge.stop();

    const readings = scanAll(db, 'Readings');
    expect(readings).toHaveLength(N);
    for (let seq = 1; seq <= N; seq++) {
      const r = readings.find((x) => x.seq === seq)!;
      const ts = T0 + (seq - 1) * 1000;
      expect(r.item).toEqual({
        deviceId: { S: 'node-h' },
        ts: { N: String(ts) },
        seq: { N: String(seq) },
        expiresAt: { N: String(ts / 1000 + 3600) },
        t: { N: String(20 + (seq - 1) / 4) },
        st: { S: `s${seq - 1}` },
      });
    }

    const s = bridge.status();
    const kinds = { crc: 0, truncated: 0, oversized: 0, malformed: 0, version: 0 };
    for (const [, kind] of hostile) kinds[kind as keyof typeof kinds]++;
    expect(s.totals).toMatchObject({ received: valid + hostile.length, written: N, duplicate: valid - N, corrupt: hostile.length, corruptByKind: kinds, failed: 0 });
    expect(s.devices['node-h']).toMatchObject({ received: valid, written: N, duplicate: valid - N, corrupt: hostile.length, acked: N, lastSeq: N });
    // Logged once per kind, not once per frame.
    const logged = log.lines().filter((l) => l.level === 'warn' && l.component === 'bridge').map((l) => l.msg);
    for (const kind of Object.keys(kinds)) expect(logged.filter((m) => m.includes(`dropped a ${kind} frame`))).toHaveLength(1);
  });

  it('settles seqs below a base the node sent, and acks frames that share a key with the later seq kept', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { db, bridge } = await startInProcess();
    const client = await udpClient();
    cleanups.push(() => new Promise<void>((r) => client.socket.close(() => r())));
    // seq 5 with base 5: seqs 1..4 were acked or given up, so the ack is 5 at once.
    await client.send(cFrame(['--base', '5', 'node-b', '5', '1000', 'v=1']), bridge.udpPort!);
    await until(() => client.lastAck('node-b') === 5, 5000, 'ack 5');
    // A late seq 2 is below the promise: acknowledged, not written.
    await client.send(cFrame(['--base', '2', 'node-b', '2', '900', 'v=2']), bridge.udpPort!);
    // Two seqs with one ts in one batch: the later seq's reading is kept.
    await client.send(cFrame(['--base', '6', 'node-b', '6', '2000', 'v=6']), bridge.udpPort!);
    await client.send(cFrame(['--base', '6', 'node-b', '7', '2000', 'v=7']), bridge.udpPort!);
    await until(() => client.lastAck('node-b') === 7, 5000, 'ack 7');
    await bridge.stop();
    expect(scanAll(db, 'Readings').map((r) => [r.seq, r.ts, r.item.v])).toEqual([
      [5, 1000, { N: '1' }],
      [7, 2000, { N: '7' }],
    ]);
    expect(bridge.status().totals).toMatchObject({ written: 3, duplicate: 1, keyCollisions: 1 });
  });

  it('survives kill -9 mid-ingest: after a restart nothing is lost and nothing is written twice', async () => {
    const dir = tempDir('etb-bridge-crash-');
    cleanups.push(dir.cleanup);
    const COUNT = 4000;
    const first = await spawnBridgeProcess(dir.path, 0);
    cleanups.push(() => void first.child.kill('SIGKILL'));
    const sender = runProgram(UDP_SENDER, ['127.0.0.1', String(first.port), 'node-k', String(COUNT), '40000']);
    const writtenSoFar = () => Math.max(0, ...first.lines.map((l) => /^written (\d+)$/.exec(l)).filter((m) => m !== null).map((m) => Number(m[1])));
    await until(() => writtenSoFar() >= 400, 20_000, 'the first bridge to write 400 readings');
    first.child.kill('SIGKILL');
    await waitForExit(first.child);

    // What the first process made durable: read by another process with the bridge down.
    const peek = open({ path: dir.path });
    const durableBefore = scanAll(peek, 'Readings').length;
    peek.close();
    expect(durableBefore).toBeGreaterThanOrEqual(400);
    expect(durableBefore).toBeLessThan(COUNT);

    const second = await spawnBridgeProcess(dir.path, first.port);
    cleanups.push(() => void second.child.kill('SIGKILL'));
    const r = await sender;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    second.child.kill('SIGTERM');
    expect(await waitForExit(second.child)).toBe(0);

    const db = open({ path: dir.path });
    cleanups.push(() => db.close());
    expectOnceEach(scanAll(db, 'Readings'), 'node-k', COUNT);
    const status = readBridgeStatus(dir.path)!;
    // Resent frames that were already durable were recognised, not written again.
    expect(status.totals.written).toBe(COUNT - durableBefore);
    expect(status.devices['node-k']!.acked).toBe(COUNT);
    expect(loadDedupState(db, '_bridge', 'Readings', 'node-k')).toEqual({ boot: 1, settled: COUNT, durable: [] });
  });
});

describe('node reboots (frame format 2: boot ids)', () => {
  it('stores the readings of a rebooted node whose seqs start at 1 again, and refuses frames of its old boot', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { db, bridge } = await startInProcess();
    const T0 = 1_700_000_000_000;
    // Boot 1: seqs 1..60, acked.
    let r = await runProgram(UDP_SENDER, ['--boot', '1', '--ts0', String(T0), '127.0.0.1', String(bridge.udpPort), 'node-r', '60', '30000']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Power cycle: the node's RAM (ring, counter) is gone; its boot counter says 2; seqs 1..40 again.
    r = await runProgram(UDP_SENDER, ['--boot', '2', '--ts0', String(T0 + 3_600_000), '127.0.0.1', String(bridge.udpPort), 'node-r', '40', '30000']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const client = await udpClient();
    cleanups.push(() => new Promise<void>((done) => client.socket.close(() => done())));
    // A frame of boot 1 arriving now (late, or replayed) is refused and not acknowledged.
    await client.send(cFrame(['--boot', '1', 'node-r', '61', String(T0 + 61), 'v=1']), bridge.udpPort!);
    // A replay of boot 2's seq 5 is a duplicate: acked with boot 2's ack, not written again.
    await client.send(cFrame(['--boot', '2', 'node-r', '5', String(T0 + 3_600_000 + 5), 'v=5']), bridge.udpPort!);
    await until(() => client.lastAck('node-r#2') === 40, 5000, "boot 2's ack");
    await until(() => bridge.status().totals.refused === 1, 5000, 'the stale frame refused');
    await bridge.stop();

    const mine = scanAll(db, 'Readings').filter((x) => x.deviceId === 'node-r');
    expect(mine).toHaveLength(100);
    expect(mine.filter((x) => x.ts < T0 + 3_600_000).map((x) => x.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(mine.filter((x) => x.ts >= T0 + 3_600_000).map((x) => x.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(client.lastAck('node-r#1')).toBeUndefined();
    const s = bridge.status();
    expect(s.totals.refusedByKind).toEqual({ unauthenticated: 0, unsigned: 0, badMac: 0, staleBoot: 1, futureBoot: 0 });
    expect(s.devices['node-r']).toMatchObject({ boot: 2, reboots: 1, acked: 40, lastSeq: 40, written: 100 });
    // One state per node: the old boot's is gone.
    expect(loadDedupState(db, '_bridge', 'Readings', 'node-r')).toEqual({ boot: 2, settled: 40, durable: [] });
  });

  it('takes version 1 frames (no boot id) as boot 0, answers them with version 1 acks, and moves on when the node is upgraded', async () => {
    const { db, bridge } = await startInProcess();
    const client = await udpClient();
    cleanups.push(() => new Promise<void>((done) => client.socket.close(() => done())));
    const legacy = (seq: number) => encodeSensorFrame({ deviceId: 'old-node', boot: 0, seq, ts: 1000 + seq, fields: { v: seq } });
    for (const seq of [1, 2, 3, 2]) await client.send(legacy(seq), bridge.udpPort!);
    await until(() => client.lastAck('old-node#0') === 3, 5000, 'the version 1 ack of 3');
    // Upgraded firmware: boot 1, seqs from 1.
    await client.send(encodeSensorFrame({ deviceId: 'old-node', boot: 1, seq: 1, ts: 5000, fields: { v: 100 } }), bridge.udpPort!);
    await until(() => client.lastAck('old-node#1') === 1, 5000, 'the version 2 ack of boot 1');
    // A version 1 frame now is from an older boot than the node's: refused.
    await client.send(legacy(4), bridge.udpPort!);
    await until(() => bridge.status().totals.refusedByKind.staleBoot === 1, 5000, 'the late version 1 frame refused');
    await bridge.stop();
    expect(scanAll(db, 'Readings').map((x) => x.ts).sort((a, b) => a - b)).toEqual([1001, 1002, 1003, 5000]);
    expect(bridge.status().devices['old-node']).toMatchObject({ boot: 1, reboots: 1, duplicate: 1 });
  });
});

describe('who may write (per-node keys)', () => {
  const KEY = Buffer.from('00112233445566778899aabbccddeeff0011223344556677', 'hex');

  it("takes the C node's signed frames and refuses unsigned, forged, and unknown nodes' frames", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { db, bridge } = await startInProcess({ keys: new Map([['node-s', Uint8Array.from(KEY)]]), allowUnauthenticated: false });
    const r = await runProgram(UDP_SENDER, ['--key', KEY.toString('hex'), '127.0.0.1', String(bridge.udpPort), 'node-s', '200', '30000']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const client = await udpClient();
    cleanups.push(() => new Promise<void>((done) => client.socket.close(() => done())));
    const T = 1_800_000_000_000;
    const forgedKey = Uint8Array.from(KEY);
    forgedKey[0]! ^= 0xff;
    const attempts: [Uint8Array, string][] = [
      [cFrame(['node-s', '201', String(T), 'v=1']), 'unsigned'], // right device, no MAC
      [cFrame(['--key', Buffer.from(forgedKey).toString('hex'), 'node-s', '202', String(T + 1), 'v=2']), 'badMac'],
      [cFrame(['--key', KEY.toString('hex'), 'node-x', '1', String(T + 2), 'v=3']), 'unauthenticated'], // no key on file
    ];
    // A signed frame changed in flight with its CRC fixed: the MAC no longer matches.
    const signed = cFrame(['--key', KEY.toString('hex'), 'node-s', '203', String(T + 3), 'v=4']);
    const body = signed.slice(0, -4);
    const at = body.findIndex((b, i) => b === 0x61 && body[i + 1] === 0x76 && body[i + 2] === 0x04) + 2; // "v": 4
    expect(at).toBeGreaterThan(2);
    body[at] = 0x05; // "v": 5
    const tampered = new Uint8Array(signed.length);
    tampered.set(body);
    new DataView(tampered.buffer).setUint32(body.length, crc32(body));
    attempts.push([tampered, 'badMac']);
    for (const [bytes] of attempts) await client.send(bytes, bridge.udpPort!);
    // A captured signed frame replayed later: a duplicate, acked, not written again.
    const replay = cFrame(['--key', KEY.toString('hex'), 'node-s', '7', '1', 'v=7']);
    await client.send(replay, bridge.udpPort!);
    await until(() => client.lastAck('node-s') === 200, 5000, 'the replay acked as a duplicate');
    await until(() => bridge.status().totals.refused === attempts.length, 5000, 'every refusal counted');
    await bridge.stop();

    const readings = scanAll(db, 'Readings');
    expect(readings.filter((x) => x.deviceId === 'node-s')).toHaveLength(200);
    expect(readings.filter((x) => x.deviceId !== 'node-s')).toEqual([]);
    expect(readings.some((x) => x.ts >= T)).toBe(false);
    const s = bridge.status();
    expect(s.totals.refusedByKind).toEqual({ unauthenticated: 1, unsigned: 1, badMac: 2, staleBoot: 0, futureBoot: 0 });
    expect(s.devices['node-s']).toMatchObject({ written: 200, duplicate: s.devices['node-s']!.received - 200 });
    expect(s.devices['node-x']).toBeUndefined(); // a refused frame's claims create nothing
    expect(client.lastAck('node-x')).toBeUndefined();
  });

  it('with allowUnauthenticated, takes frames of nodes without a key but still checks those with one', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { db, bridge } = await startInProcess({ keys: new Map([['node-s', Uint8Array.from(KEY)]]), allowUnauthenticated: true });
    const client = await udpClient();
    cleanups.push(() => new Promise<void>((done) => client.socket.close(() => done())));
    await client.send(encodeSensorFrame({ deviceId: 'open-node', seq: 1, ts: 1, fields: { v: 1 } }), bridge.udpPort!);
    await client.send(encodeSensorFrame({ deviceId: 'node-s', seq: 1, ts: 2, fields: { v: 2 } }), bridge.udpPort!);
    await client.send(encodeSensorFrame({ deviceId: 'node-s', seq: 2, ts: 3, fields: { v: 3 } }, { key: Uint8Array.from(KEY) }), bridge.udpPort!);
    await until(() => client.lastAck('open-node') === 1 && bridge.status().totals.refused === 1, 5000, 'the open node acked, the unsigned frame refused');
    await bridge.stop();
    // A Scan's order across partition keys is the store's: compare as a set.
    expect(scanAll(db, 'Readings').map((x) => [x.deviceId, x.ts]).sort()).toEqual([['node-s', 3], ['open-node', 1]]);
    expect(bridge.status().totals.refusedByKind.unsigned).toBe(1);
  });
});

/** A test-side node: sends datagrams, remembers the last ack per device. */
async function udpClient(): Promise<{ socket: Socket; send(b: Uint8Array, port: number): Promise<void>; lastAck(deviceId: string): number | undefined }> {
  const socket = createSocket('udp4');
  const acks = new Map<string, number>();
  socket.on('message', (msg) => {
    const a = decodeAck(msg);
    acks.set(a.deviceId, a.seq);
    acks.set(`${a.deviceId}#${a.boot}`, a.seq);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return {
    socket,
    send: (b, port) => new Promise((r, j) => socket.send(b, port, '127.0.0.1', (e) => (e ? j(e) : r()))),
    lastAck: (deviceId) => acks.get(deviceId),
  };
}
