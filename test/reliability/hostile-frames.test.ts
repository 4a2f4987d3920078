/**
 * Hostile sensor frames (issue 9 part 3): random bytes and mutated valid frames (bit flips,
 * truncation, insertion, splices), half of them with the CRC recomputed so they reach the CBOR
 * decoder. decodeSensorFrame returns a frame or throws FrameError, nothing else; through the
 * bridge over UDP every datagram is counted (written, duplicate or a counted corrupt drop) and the
 * bridge keeps ingesting valid frames.
 */
import { createSocket } from 'node:dgram';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startBridge } from '../../src/bridge/start-bridge.js';
import { FrameError, crc32, decodeSensorFrame, encodeSensorFrame } from '../../src/codec/sensor-frame.js';
import { open } from '../../src/edgetable.js';
import { budgetMs, fuzzFor, settledHeapBytes } from './harness/fuzz-budget.js';
import { useTempDirs } from './harness/fixture.js';

const temp = useTempDirs('edgetable-hostile-frames-');

const valid = fc
  .record({
    deviceId: fc.stringMatching(/^[A-Za-z0-9._:][A-Za-z0-9._:-]{0,31}$/),
    seq: fc.integer({ min: 1, max: 2 ** 32 - 1 }),
    ts: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    fields: fc.dictionary(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,31}$/), fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 40 })), { maxKeys: 16 }),
  })
  .map((f) => encodeSensorFrame(f));

type Mutation = { kind: 'flip' | 'truncate' | 'insert' | 'splice'; at: number; bytes: Uint8Array };

/** Mutates the CBOR map of a frame; `fixCrc` appends a correct CRC so the decoder sees the damage. */
function mutate(frame: Uint8Array, m: Mutation, fixCrc: boolean): Uint8Array {
  const map = frame.subarray(0, frame.length - 4);
  const at = map.length === 0 ? 0 : m.at % map.length;
  let out: Uint8Array;
  if (m.kind === 'flip') {
    out = Uint8Array.from(map);
    if (out.length > 0) out[at] = out[at]! ^ (m.bytes[0] ?? 1);
  } else if (m.kind === 'truncate') out = map.subarray(0, at);
  else if (m.kind === 'insert') out = Uint8Array.from([...map.subarray(0, at), ...m.bytes, ...map.subarray(at)]);
  else out = Uint8Array.from([...map.subarray(0, at), ...m.bytes, ...map.subarray(at + m.bytes.length)]);
  if (!fixCrc) return Uint8Array.from([...out, ...frame.subarray(frame.length - 4)]);
  const crc = crc32(out);
  return Uint8Array.from([...out, crc >>> 24, (crc >>> 16) & 255, (crc >>> 8) & 255, crc & 255]);
}

const mutation = fc.record({
  kind: fc.constantFrom<Mutation['kind']>('flip', 'truncate', 'insert', 'splice'),
  at: fc.nat(),
  bytes: fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.constantFrom(Uint8Array.of(0xff), Uint8Array.of(0x9f), Uint8Array.of(0xbf), Uint8Array.of(0x1b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), Uint8Array.of(0x7b, 0xff, 0xff, 0xff, 0xff), Uint8Array.of(0xc6))),
});

const hostile: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 600 }) },
  { weight: 6, arbitrary: fc.tuple(valid, mutation, fc.boolean()).map(([f, m, fix]) => mutate(f, m, fix)) },
  { weight: 1, arbitrary: valid },
);

describe('hostile sensor frames', () => {
  it('decodeSensorFrame returns a frame or throws FrameError, nothing else', async () => {
    const kinds = new Map<string, number>();
    let decoded = 0;
    const heapBefore = settledHeapBytes();
    const tried = await fuzzFor(hostile, budgetMs(5_000), 5, (bytes) => {
      try {
        decodeSensorFrame(bytes);
        decoded += 1;
      } catch (error) {
        if (!(error instanceof FrameError)) throw error;
        kinds.set(error.kind, (kinds.get(error.kind) ?? 0) + 1);
      }
    });
    const heapGrowth = settledHeapBytes() - heapBefore;
    console.log(`hostile frames (decoder): ${tried} tried, ${decoded} decoded, dropped ${JSON.stringify(Object.fromEntries(kinds))}, heap growth ${(heapGrowth / 1024 / 1024).toFixed(1)} MiB`);
    expect(kinds.get('malformed') ?? 0).toBeGreaterThan(0); // CRC-fixed mutants reach the CBOR decoder
    expect(decoded).toBeGreaterThan(0);
    expect(heapGrowth).toBeLessThan(32 * 1024 * 1024);
  }, 60_000);

  it('through the bridge over UDP: every datagram counted, the store consistent, valid frames still ingested', async () => {
    const db = open({ path: join(temp.dir(), 'db') });
    const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, statusFile: null, allowUnauthenticated: true });
    const socket = createSocket('udp4');
    try {
      const frames = fc.sample(hostile, { numRuns: Number(process.env.FUZZ_FRAMES ?? 3000), seed: 6 });
      for (let i = 0; i < frames.length; i++) {
        socket.send(frames[i]!, bridge.udpPort!, '127.0.0.1');
        if (i % 50 === 49) await new Promise((r) => setTimeout(r, 5)); // pace: localhost UDP drops when the buffer fills
      }
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && bridge.status().totals.received < frames.length) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200));
      const t = bridge.status().totals;
      console.log(`hostile frames (UDP bridge): ${frames.length} sent, ${JSON.stringify(t)}`);
      expect(t.received).toBe(frames.length);
      // Every datagram is accounted for: stored, a duplicate, a counted corrupt drop, a counted
      // refusal (e.g. a mutated boot id below the device's), deferred, or in a batch that failed to
      // commit (not acked: the node resends; see the known issue below).
      expect(t.written + t.duplicate + t.corrupt + t.refused + t.deferred + t.failed).toBe(t.received);
      expect(Object.values(t.corruptByKind).reduce((a, b) => a + b, 0)).toBe(t.corrupt);
      expect(t.corrupt).toBeGreaterThan(frames.length / 2);
      // The bridge still ingests a valid frame sent on its own afterwards.
      socket.send(encodeSensorFrame({ deviceId: 'survivor', seq: 1, ts: 1_700_000_000_000, fields: { t: 21.5 } }), bridge.udpPort!, '127.0.0.1');
      const until = Date.now() + 10_000;
      while (Date.now() < until && bridge.status().totals.received < frames.length + 1) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      const got = db.getItem({ TableName: 'Readings', Key: { deviceId: { S: 'survivor' }, ts: { N: '1700000000000' } } }) as { Item?: unknown };
      expect(got.Item).toBeDefined();
      expect(db.verify().Differences).toBe(0);
    } finally {
      socket.close();
      await bridge.stop();
      db.close();
    }
  }, 90_000);

  // Known issue (reported to the bridge owner): a frame with a valid CRC whose number DynamoDB
  // cannot store (|v| > 9.99E+125, e.g. 1e300) fails the whole BatchWriteItem, so the valid
  // frames batched with it are not written (counted as `failed`, left for the nodes to resend)
  // and the bad frame, never acked, is resent forever. Flips to a plain `it` once fixed.
  it('a frame holding a number DynamoDB cannot store does not block the valid frames batched with it', async () => {
    const db = open({ path: join(temp.dir(), 'db') });
    const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, statusFile: null, batchMaxDelayMs: 50, allowUnauthenticated: true });
    const socket = createSocket('udp4');
    try {
      socket.send(encodeSensorFrame({ deviceId: 'good', seq: 1, ts: 1_700_000_000_000, fields: { t: 1 } }), bridge.udpPort!, '127.0.0.1');
      socket.send(encodeSensorFrame({ deviceId: 'bad', seq: 1, ts: 1_700_000_000_000, fields: { t: 1e300 } }), bridge.udpPort!, '127.0.0.1');
      const until = Date.now() + 10_000;
      while (Date.now() < until && bridge.status().totals.received < 2) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 300));
      const got = db.getItem({ TableName: 'Readings', Key: { deviceId: { S: 'good' }, ts: { N: '1700000000000' } } }) as { Item?: unknown };
      expect(got.Item).toBeDefined();
      // The unstorable reading is a counted drop, never written, and its seq is settled.
      const bad = db.getItem({ TableName: 'Readings', Key: { deviceId: { S: 'bad' }, ts: { N: '1700000000000' } } }) as { Item?: unknown };
      expect(bad.Item).toBeUndefined();
      expect(bridge.status().totals.corruptByKind.malformed).toBe(1);
      expect(bridge.status().devices.bad?.acked).toBe(1);
      // Alone in its batch, an unstorable frame still settles: the batch writes only dedup state.
      socket.send(encodeSensorFrame({ deviceId: 'lonely', seq: 1, ts: 1_700_000_000_000, fields: { t: 1e300 } }), bridge.udpPort!, '127.0.0.1');
      const lonelyUntil = Date.now() + 10_000;
      while (Date.now() < lonelyUntil && bridge.status().devices.lonely?.acked !== 1) await new Promise((r) => setTimeout(r, 20));
      expect(bridge.status().devices.lonely?.acked).toBe(1);
      expect(bridge.status().totals.failed).toBe(0);
    } finally {
      socket.close();
      await bridge.stop();
      db.close();
    }
  }, 30_000);
});
