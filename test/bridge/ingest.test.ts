/**
 * Ingest under storage faults (the seam of src/storage/fault-injector.ts): a commit that fails
 * never ends the bridge, is counted and reported, and retried with backoff; nothing is
 * acknowledged before it is durable.
 */
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decodeAck, encodeSensorFrame } from '../../src/codec/sensor-frame.js';
import { open } from '../../src/edgetable.js';
import { startBridge } from '../../src/bridge/start-bridge.js';
import { FaultInjector } from '../../src/storage/fault-injector.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { scanAll, tempDir, until } from './fixtures/helpers.js';
import { captureLog } from '../log/capture-log.js';
import { Ingest } from '../../src/bridge/ingest.js';
import { defaultMapFrame, ensureReadingsTable, keyAttributeNames } from '../../src/bridge/reading-item.js';
import { BRIDGE_STATE_TABLE, ensureStateTable } from '../../src/bridge/state-table.js';
import type { Edgetable } from '../../src/edgetable.js';

function ingestOn(db: Edgetable): Ingest {
  ensureReadingsTable(db, 'Readings');
  ensureStateTable(db);
  return new Ingest({ db, table: 'Readings', stateTable: BRIDGE_STATE_TABLE, mapFrame: defaultMapFrame(), keyNames: keyAttributeNames(db, 'Readings'), batchMaxItems: 24, batchMaxDelayMs: 1000, now: Date.now, onChange: () => undefined, allowUnauthenticated: true });
}

/** Fails every commit while `failing` is set, as a full SD card does. */
class FailingDisk extends FaultInjector {
  failing = false;
  override beforeCommit(): void {
    super.beforeCommit();
    if (this.failing) throw new StorageError('IO', `injected fault: commit #${this.commits} failed (disk full)`);
  }
}

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.restoreAllMocks();
});

describe('Ingest when commits fail', () => {
  it('keeps running, acks nothing unwritten, reports the error, and recovers when the disk does', async () => {
    const log = captureLog();
    cleanups.push(() => log.restore());
    const dir = tempDir('etb-ingest-faults-');
    cleanups.push(dir.cleanup);
    const disk = new FailingDisk();
    const db = open({ path: dir.path, faults: disk });
    cleanups.push(() => db.close());
    const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, allowUnauthenticated: true, statusFile: null });
    cleanups.push(() => bridge.stop());

    // A node that checks every ack against the store: an acked seq must already be durable.
    const socket: Socket = createSocket('udp4');
    cleanups.push(() => new Promise<void>((r) => socket.close(() => r())));
    let acked = 0;
    const violations: string[] = [];
    socket.on('message', (msg) => {
      const a = decodeAck(msg);
      const stored = new Set(scanAll(db, 'Readings').map((x) => x.seq));
      for (let s = 1; s <= a.seq; s++) if (!stored.has(s)) violations.push(`ack ${a.seq} but seq ${s} is not stored`);
      acked = Math.max(acked, a.seq);
    });
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    // base 1: the node still holds every seq (nothing acked yet), as the C library's ring would.
    const send = (seq: number) =>
      new Promise<void>((r) => socket.send(encodeSensorFrame({ deviceId: 'n1', boot: 1, seq, base: 1, ts: 1000 + seq, fields: { v: seq } }), bridge.udpPort!, '127.0.0.1', () => r()));

    disk.failing = true;
    for (let seq = 1; seq <= 5; seq++) await send(seq);
    await until(() => bridge.status().totals.storageErrors >= 2, 10_000, 'two failed commits (the first and a retry)');
    // Resent while failing: duplicates of the pending batch, still not acked.
    for (let seq = 1; seq <= 5; seq++) await send(seq);
    await until(() => bridge.status().totals.received === 10, 10_000, 'the resends');
    const failing = bridge.status();
    expect(failing.storage.backoffMs).toBeGreaterThan(0);
    expect(failing.storage.pendingFrames).toBe(5);
    expect(failing.storage.lastError).toMatch(/StorageError IO: injected fault/);
    expect(failing.totals).toMatchObject({ written: 0, failed: 0, duplicate: 5, acksSent: 0 });
    expect(acked).toBe(0);
    expect(scanAll(db, 'Readings')).toEqual([]);
    expect(log.lines().filter((l) => l.component === 'bridge' && l.msg.includes('a commit failed'))).toHaveLength(1); // logged once

    disk.failing = false;
    await until(() => acked === 5, 15_000, 'ack 5 after the disk recovered');
    for (let seq = 6; seq <= 8; seq++) await send(seq);
    await until(() => acked === 8, 10_000, 'ack 8: ingest is back to normal');
    const healed = bridge.status();
    expect(healed.storage.backoffMs).toBe(0);
    expect(healed.storage.pendingFrames).toBe(0);
    expect(healed.totals).toMatchObject({ written: 8, failed: 0 });
    expect(scanAll(db, 'Readings').map((x) => x.seq).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(violations).toEqual([]);
  });

  it('holds at most MAX_PENDING_FRAMES while failing and defers the rest unacked', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { MAX_PENDING_FRAMES } = await import('../../src/bridge/ingest.js');
    const dir = tempDir('etb-ingest-bound-');
    cleanups.push(dir.cleanup);
    const disk = new FailingDisk();
    const db = open({ path: dir.path, faults: disk });
    cleanups.push(() => db.close());
    const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, allowUnauthenticated: true, statusFile: null });
    cleanups.push(() => bridge.stop());
    const socket: Socket = createSocket('udp4');
    cleanups.push(() => new Promise<void>((r) => socket.close(() => r())));
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    disk.failing = true;
    const total = MAX_PENDING_FRAMES + 50;
    for (let seq = 1; seq <= total; seq++) {
      const frame = encodeSensorFrame({ deviceId: 'burst', seq, base: 1, ts: seq, fields: { v: seq } });
      await new Promise<void>((r) => socket.send(frame, bridge.udpPort!, '127.0.0.1', () => r()));
      if (seq % 256 === 0) await new Promise((r) => setImmediate(r));
    }
    await until(() => bridge.status().totals.deferred > 0 && bridge.status().storage.pendingFrames === MAX_PENDING_FRAMES, 20_000, 'frames past the bound deferred');
    const s = bridge.status();
    expect(s.storage.pendingFrames).toBe(MAX_PENDING_FRAMES);
    expect(s.totals.received).toBe(s.totals.deferred + s.storage.pendingFrames + s.totals.duplicate);
    disk.failing = false;
    await until(() => bridge.status().storage.pendingFrames === 0, 20_000, 'the pending frames committed');
    expect(bridge.status().totals.written).toBe(MAX_PENDING_FRAMES);
  }, 60_000);
});

describe('Ingest commits off the event loop (store.writeAsync)', () => {
  it('a resend that arrives while its original commits is acknowledged only once the original is durable', async () => {
    const dir = tempDir('etb-ingest-inflight-');
    cleanups.push(dir.cleanup);
    const db = open({ path: dir.path });
    cleanups.push(() => db.close());
    const ingest = ingestOn(db);
    const acks: string[] = [];
    const source = (id: string) => ({
      id,
      reply: (ack: Uint8Array) => void acks.push(`${id}: ack ${decodeAck(ack).seq}, stored ${scanAll(db, 'Readings').some((r) => r.seq === 1)}, flushed ${!db.store.hasUnflushedCommits}`),
    });
    const frame = encodeSensorFrame({ deviceId: 'n1', boot: 1, seq: 1, base: 1, ts: 1001, fields: { v: 1 } });
    ingest.accept(frame, source('a'));
    const committing = ingest.flush();
    ingest.accept(frame, source('b')); // the resend, while the group is being committed
    expect(acks).toEqual([]);
    expect(ingest.storageStatus().pendingFrames).toBe(1);
    await committing;
    expect(acks).toEqual(['a: ack 1, stored true, flushed true', 'b: ack 1, stored true, flushed true']);
    expect(scanAll(db, 'Readings')).toHaveLength(1);
    expect(ingest.totals).toMatchObject({ written: 1, duplicate: 1, acksSent: 2 });
    expect(db.store.asyncCommitStats.committed).toBeGreaterThan(0);
  });

  it('frames arriving during a commit form the next group; close() waits for both', async () => {
    const dir = tempDir('etb-ingest-next-');
    cleanups.push(dir.cleanup);
    const db = open({ path: dir.path });
    cleanups.push(() => db.close());
    const ingest = ingestOn(db);
    const acked: number[] = [];
    const source = { id: 's', reply: (ack: Uint8Array) => void acked.push(decodeAck(ack).seq) };
    const send = (seq: number) => ingest.accept(encodeSensorFrame({ deviceId: 'n1', boot: 1, seq, base: 1, ts: 1000 + seq, fields: { v: seq } }), source);
    send(1);
    send(2);
    void ingest.flush();
    send(3); // not part of the group in flight
    await ingest.close();
    expect(acked).toEqual([2, 3]);
    expect(scanAll(db, 'Readings').map((r) => r.seq).sort()).toEqual([1, 2, 3]);
  });
});
