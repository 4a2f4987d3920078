/**
 * Boot ids taken from a node's clock: one far ahead of the bridge's clock is refused (futureBoot),
 * and a node locked out by boot ids that went backwards is let in again by forgetting its state
 * (`edgetable bridge-forget`), which a running bridge would undo and so refuses.
 */
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeAck, encodeSensorFrame } from '../../src/codec/sensor-frame.js';
import { open } from '../../src/edgetable.js';
import { forgetNode, ForgetNodeError } from '../../src/bridge/forget-node.js';
import { startBridge, type Bridge } from '../../src/bridge/start-bridge.js';
import { loadDedupState } from '../../src/bridge/state-table.js';
import { run } from '../cli/run-cli.js';
import { captureLog } from '../log/capture-log.js';
import { scanAll, tempDir, until } from './fixtures/helpers.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const frame = (boot: number, seq: number) => encodeSensorFrame({ deviceId: 'clocky', boot, seq, ts: 1_700_000_000_000 + boot + seq, fields: { v: seq } });

async function sender(): Promise<{ send(bytes: Uint8Array, port: number): Promise<void>; acked(boot: number): number | undefined }> {
  const socket = createSocket('udp4');
  const acks = new Map<number, number>();
  socket.on('message', (msg) => {
    const a = decodeAck(msg);
    acks.set(a.boot, a.seq);
  });
  await new Promise<void>((done) => socket.bind(0, '127.0.0.1', () => done()));
  cleanups.push(() => new Promise<void>((done) => socket.close(() => done())));
  return {
    send: (bytes, port) => new Promise((done, fail) => socket.send(bytes, port, '127.0.0.1', (e) => (e ? fail(e) : done()))),
    acked: (boot) => acks.get(boot),
  };
}

describe('boot ids from a node clock', () => {
  it('refuses a boot id further ahead of the bridge clock than allowed, unacknowledged, unwritten, leaving the state alone', async () => {
    const log = captureLog();
    cleanups.push(() => log.restore());
    const dir = tempDir('etb-forget-');
    cleanups.push(dir.cleanup);
    const db = open({ path: dir.path });
    cleanups.push(() => db.close());
    const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, allowUnauthenticated: true, maxBootAheadSeconds: 3600 });
    cleanups.push(() => bridge.stop());
    const node = await sender();
    const right = nowSeconds();
    await node.send(frame(right, 1), bridge.udpPort!);
    await until(() => node.acked(right) === 1, 5000, 'the ack of a boot id from a right clock');
    const ahead = right + 2 * 3600; // a clock two hours fast
    await node.send(frame(ahead, 1), bridge.udpPort!);
    await until(() => bridge.status().totals.refusedByKind.futureBoot === 1, 5000, 'the boot id ahead refused');
    await node.send(frame(right, 2), bridge.udpPort!); // the node's right boot goes on
    await until(() => node.acked(right) === 2, 5000, 'the right boot still taken');
    await bridge.stop();
    expect(node.acked(ahead)).toBeUndefined();
    expect(scanAll(db, 'Readings').map((r) => r.seq)).toEqual([1, 2]);
    expect(loadDedupState(db, '_bridge', 'Readings', 'clocky')).toEqual({ boot: right, settled: 2, durable: [] });
    expect(log.lines().some((l) => l.msg.includes('futureBoot'))).toBe(true);
  });

  it('lets a node whose boot ids went backwards in again once its state is forgotten, and only while no bridge runs', async () => {
    const dir = tempDir('etb-forget-');
    cleanups.push(dir.cleanup);
    const db = open({ path: dir.path });
    let bridge: Bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, allowUnauthenticated: true });
    const node = await sender();
    const fast = nowSeconds() + 3000; // within the default day: taken
    await node.send(frame(fast, 1), bridge.udpPort!);
    await until(() => node.acked(fast) === 1, 5000, 'the fast boot taken');
    const right = nowSeconds(); // the clock corrected: a smaller boot id, stale from now on
    await node.send(frame(right, 1), bridge.udpPort!);
    await until(() => bridge.status().totals.refusedByKind.staleBoot === 1, 5000, 'the corrected boot refused as stale');

    await bridge.stop();
    db.close();
    expect(await run(['bridge-forget', 'clocky', '--path', dir.path])).toEqual({
      code: 0,
      out: `forgot clocky of Readings (boot ${fast}, acknowledged up to seq 1): its next frame starts a new stream\n`,
      err: '',
    });
    expect(await run(['bridge-forget', 'clocky', '--path', dir.path])).toEqual({ code: 0, out: 'no state kept for clocky of Readings\n', err: '' });

    const again = open({ path: dir.path });
    cleanups.push(() => again.close());
    bridge = await startBridge({ db: again, udp: { host: '127.0.0.1', port: 0 }, allowUnauthenticated: true });
    cleanups.push(() => bridge.stop());
    await node.send(frame(right, 1), bridge.udpPort!);
    await until(() => node.acked(right) === 1, 5000, 'the corrected boot taken');
    expect(loadDedupState(again, '_bridge', 'Readings', 'clocky')).toEqual({ boot: right, settled: 1, durable: [] });
  });

  it('refuses to forget while a bridge of another process runs on the store, and a folder without a store', async () => {
    const dir = tempDir('etb-forget-');
    cleanups.push(dir.cleanup);
    const db = open({ path: dir.path });
    cleanups.push(() => db.close());
    const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, allowUnauthenticated: true });
    cleanups.push(() => bridge.stop());
    // The status file as a bridge of another live process (our parent) leaves it.
    await until(() => existsSync(join(dir.path, 'bridge-status.json')), 5000, 'a status file');
    const status = JSON.parse(readFileSync(join(dir.path, 'bridge-status.json'), 'utf8')) as { pid: number; running: boolean };
    await bridge.stop();
    writeFileSync(join(dir.path, 'bridge-status.json'), JSON.stringify({ ...status, pid: process.ppid, running: true }));
    expect(() => forgetNode(db, dir.path, 'clocky', 'Readings')).toThrow(new ForgetNodeError(`a bridge (process ${process.ppid}) is running on ${dir.path}: stop it first, or it writes the state it holds back`));
    const none = tempDir('etb-forget-none-');
    cleanups.push(none.cleanup);
    expect(await run(['bridge-forget', 'clocky', '--path', none.path])).toEqual({ code: 1, out: '', err: `ForgetNodeError: ${none.path} holds no store\n` });
  });
});
