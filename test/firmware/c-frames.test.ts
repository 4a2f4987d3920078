/**
 * The C library and the TypeScript codec against each other: frames made by
 * firmware-bridge/build/frame-encode decode in TypeScript (byte-identical to encodeSensorFrame),
 * TypeScript acks decode in C (build/ack-decode), and build/udp-sender delivers readings to a
 * small UDP bridge written here with the TypeScript decoder.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CobsSplitter,
  FrameError,
  crc32,
  decodeSensorFrame,
  encodeAck,
  encodeAckCobs,
  encodeSensorFrame,
  verifySensorMac,
  type SensorFrame,
} from '../../src/codec/sensor-frame.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'firmware-bridge');
const tool = (name: string) => join(root, 'build', name);
const hasGcc = spawnSync('gcc', ['--version']).status === 0;
if (!hasGcc) console.warn('test/firmware: gcc not found, skipping the C interop tests');

function frameEncode(args: string[]): Buffer {
  return execFileSync(tool('frame-encode'), args, { maxBuffer: 4096 });
}

function ackDecode(bytes: Uint8Array, cobs = false, key?: Uint8Array): { status: number | null; out: string } {
  const args = [...(cobs ? ['--cobs'] : []), ...(key ? ['--key', Buffer.from(key).toString('hex')] : [])];
  const r = spawnSync(tool('ack-decode'), args, { input: bytes });
  return { status: r.status, out: r.stdout.toString().trim() };
}

type Reading = Omit<SensorFrame, 'signed'>;

/** CLI arguments for frame-encode that state each field's type explicitly. */
function cliArgs(f: Reading, key?: Uint8Array): string[] {
  const fields = Object.entries(f.fields).map(([k, v]) =>
    typeof v === 'string' ? `${k}:s=${v}` : Number.isSafeInteger(v) ? `${k}:i=${v}` : `${k}:d=${String(v)}`,
  );
  const keyArgs = key ? ['--key', Buffer.from(key).toString('hex')] : [];
  return ['--base', String(f.base), '--boot', String(f.boot), ...keyArgs, f.deviceId, String(f.seq), String(f.ts), ...fields];
}

describe.skipIf(!hasGcc)('C frames decoded in TypeScript', () => {
  beforeAll(() => {
    execFileSync('make', ['-s', '-C', root], { stdio: 'pipe', timeout: 120_000 });
  }, 120_000);

  it.each<Reading>([
    { deviceId: 'n1', boot: 1, seq: 7, base: 5, ts: 1_700_000_000_000, fields: { t: 21.5, h: -3, s: 'ok', big: 100000, pi: Math.PI } },
    { deviceId: 'a', boot: 1, seq: 1, base: 1, ts: 0, fields: {} },
    { deviceId: 'esp32-kitchen:01', boot: 0xffffffff, seq: 0xffffffff, base: 1, ts: Number.MAX_SAFE_INTEGER, fields: { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, tiny: 5e-324, huge: 1.7976931348623157e308 } },
    { deviceId: 'x', boot: 300, seq: 300, base: 300, ts: 65536, fields: { name: 'h\u00e9llo \u20ac \u{1F600}', empty: '', zero: 0, neg: -0.5, f32: 2 ** 53 } },
  ])('frame-encode $deviceId/$seq equals encodeSensorFrame and decodes', (f) => {
    const c = frameEncode(cliArgs(f));
    expect(Buffer.from(encodeSensorFrame(f)).toString('hex')).toBe(c.toString('hex'));
    expect(decodeSensorFrame(c)).toEqual({ ...f, signed: false });
  });

  it('infers field types like the docs say', () => {
    const c = frameEncode(['dev', '3', '1000', 'temperature=21.25', 'humidity=40', 'status=ok', 'x=-7']);
    expect(decodeSensorFrame(c)).toEqual({ deviceId: 'dev', boot: 1, seq: 3, base: 3, ts: 1000, fields: { temperature: 21.25, humidity: 40, status: 'ok', x: -7 }, signed: false });
  });

  it("the C library's MAC (its own SHA-256/HMAC) equals Node's crypto, and verifies", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 32 }),
        fc.integer({ min: 1, max: 0xffffffff }),
        fc.integer({ min: 1, max: 0xffffffff }),
        fc.string({ maxLength: 100 }).filter((s) => !s.includes('\0') && !/[\uD800-\uDFFF]/.test(s)),
        (key, boot, seq, text) => {
          const f: Reading = { deviceId: 'keyed', boot, seq, base: seq, ts: 1_700_000_000_000, fields: { t: 21.5, note: text } };
          const c = frameEncode(cliArgs(f, key));
          expect(Buffer.from(encodeSensorFrame(f, { key })).toString('hex')).toBe(c.toString('hex'));
          expect(decodeSensorFrame(c)).toEqual({ ...f, signed: true });
          expect(verifySensorMac(c, key)).toBe(true);
          const other = key.slice();
          other[0]! ^= 0x80;
          expect(verifySensorMac(c, other)).toBe(false);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('agrees with the TypeScript encoder on random frames', () => {
    const frame = fc.record({
      // No leading '-': frame-encode would read such a device id as an option.
      deviceId: fc.stringMatching(/^[A-Za-z0-9._:][A-Za-z0-9._:-]{0,31}$/),
      seq: fc.integer({ min: 1, max: 0xffffffff }),
      ts: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      fields: fc.dictionary(
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,31}$/),
        fc.oneof(
          fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
          fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v)),
          fc.string({ maxLength: 20 }).filter((s) => !s.includes('\0') && !/[\uD800-\uDFFF]/.test(s)),
        ),
        { maxKeys: 6 },
      ),
    });
    fc.assert(
      fc.property(frame, (f) => {
        const full = { ...f, base: f.seq, boot: 1 };
        const c = frameEncode(cliArgs(full));
        expect(Buffer.from(encodeSensorFrame(full)).toString('hex')).toBe(c.toString('hex'));
        expect(decodeSensorFrame(c)).toEqual({ ...full, signed: false });
      }),
      { numRuns: 40 },
    );
  });

  it('serial output (--cobs) splits into the same frames', () => {
    const stream = Buffer.concat([
      frameEncode(['--cobs', 'uart', '1', '10', 'v=0', 'w=0']),
      frameEncode(['--cobs', 'uart', '2', '20', 's=a']),
    ]);
    const s = new CobsSplitter();
    const frames = [...s.push(stream.subarray(0, 7)), ...s.push(stream.subarray(7))].map((c) => {
      if (!c.ok) throw c.error;
      return decodeSensorFrame(c.frame);
    });
    expect(frames.map((f) => [f.seq, f.fields])).toEqual([[1, { v: 0, w: 0 }], [2, { s: 'a' }]]);
  });

  it('the C encoder refuses what the grammar forbids', () => {
    const fail = (args: string[]) => spawnSync(tool('frame-encode'), args).stderr.toString().trim();
    expect(fail(['a/b', '1', '0'])).toBe('frame-encode: ETB_ERR_INVALID');
    expect(fail(['a', '0', '0'])).toBe('frame-encode: ETB_ERR_RANGE');
    expect(fail(['--boot', '0', 'a', '1', '0'])).toBe('frame-encode: ETB_ERR_RANGE');
    expect(fail(['a', '1', '0', 'x:i=9007199254740992'])).toBe('frame-encode: ETB_ERR_RANGE');
    expect(fail(['a', '1', '0', 'x=1', 'x=2'])).toBe('frame-encode: ETB_ERR_DUPLICATE');
    expect(fail(['a', '1', '0', ...Array.from({ length: 17 }, (_, i) => `f${i}=1`)])).toBe('frame-encode: ETB_ERR_TOO_MANY_FIELDS');
    expect(fail(['a', '1', '0', ...Array.from({ length: 4 }, (_, i) => `s${i}=${'v'.repeat(128)}`)])).toBe('frame-encode: ETB_ERR_TOO_LARGE');
  });

  it('TypeScript acks decode in C; corrupt and future acks are refused', () => {
    expect(ackDecode(encodeAck('n1', 255, 3))).toEqual({ status: 0, out: 'device=n1 boot=3 seq=255' });
    expect(ackDecode(encodeAck('x'.repeat(32), 0xffffffff, 0xffffffff))).toEqual({ status: 0, out: `device=${'x'.repeat(32)} boot=4294967295 seq=4294967295` });
    expect(ackDecode(encodeAckCobs('uart-1', 0, 1), true)).toEqual({ status: 0, out: 'device=uart-1 boot=1 seq=0' });
    // a version 1 ack (what the bridge sends a version 1 node) is not for this library
    expect(ackDecode(encodeAck('n1', 255, 0))).toEqual({ status: 1, out: 'ETB_ERR_VERSION' });
    // signed acks verify in C with the node's key, and only with it
    const key = Uint8Array.from({ length: 20 }, (_, i) => 3 * i + 1);
    expect(ackDecode(encodeAck('n1', 255, 2, key), false, key)).toEqual({ status: 0, out: 'device=n1 boot=2 seq=255 mac' });
    expect(ackDecode(encodeAckCobs('n1', 255, 2, key), true, key)).toEqual({ status: 0, out: 'device=n1 boot=2 seq=255 mac' });
    expect(ackDecode(encodeAck('n1', 255, 2, key.map((b) => b ^ 4)), false, key)).toEqual({ status: 1, out: 'ETB_ERR_AUTH' });
    expect(ackDecode(encodeAck('n1', 255, 2), false, key)).toEqual({ status: 1, out: 'ETB_ERR_AUTH' });
    const bad = encodeAck('n1', 255);
    bad[4]! ^= 0x20;
    expect(ackDecode(bad)).toEqual({ status: 1, out: 'ETB_ERR_CRC' });
    expect(ackDecode(encodeAck('n1', 255).subarray(0, 3))).toEqual({ status: 1, out: 'ETB_ERR_TRUNCATED' });
    const v3 = Uint8Array.from(encodeAck('n1', 1));
    v3[2] = 3; // version 3, then fix the CRC with the TypeScript side's CRC
    const body = v3.subarray(0, v3.length - 4);
    const fixed = new Uint8Array(v3.length);
    fixed.set(body);
    new DataView(fixed.buffer).setUint32(body.length, crc32(body));
    expect(ackDecode(fixed)).toEqual({ status: 1, out: 'ETB_ERR_VERSION' });
  });
});

describe.skipIf(!hasGcc)('udp-sender against a TypeScript UDP bridge', () => {
  let socket: Socket | undefined;
  afterEach(() => {
    socket?.close();
    socket = undefined;
  });

  beforeAll(() => {
    execFileSync('make', ['-s', '-C', root], { stdio: 'pipe', timeout: 120_000 });
  }, 120_000);

  /** A bridge: decodes frames, loses some first transmissions, acks the highest settled seq. */
  async function startBridge(opts: { ack: boolean; lose: (seq: number, attempt: number) => boolean }) {
    const s = createSocket('udp4');
    socket = s;
    const received = new Map<number, SensorFrame>();
    const attempts = new Map<number, number>();
    const errors: FrameError[] = [];
    let settled = 0;
    s.on('message', (msg, rinfo) => {
      let f: SensorFrame;
      try {
        f = decodeSensorFrame(msg);
      } catch (e) {
        errors.push(e as FrameError);
        return;
      }
      const attempt = (attempts.get(f.seq) ?? 0) + 1;
      attempts.set(f.seq, attempt);
      if (opts.lose(f.seq, attempt)) return;
      received.set(f.seq, f);
      settled = Math.max(settled, f.base - 1); // below base the node has given up: not a gap to wait for
      while (received.has(settled + 1)) settled++;
      if (opts.ack) s.send(encodeAck(f.deviceId, settled, f.boot), rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
    return { port: s.address().port, received, attempts, errors };
  }

  function run(args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const p = spawn(tool('udp-sender'), args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('error', reject);
      p.on('close', (code) => resolve({ code, stderr, ms: Date.now() - started }));
    });
  }

  it('delivers COUNT readings through loss, resending until all are acknowledged', async () => {
    const bridge = await startBridge({ ack: true, lose: (seq, attempt) => attempt === 1 && seq % 4 === 0 });
    const r = await run(['127.0.0.1', String(bridge.port), 'udp-node-1', '100', '15000']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect([...bridge.received.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(bridge.errors).toEqual([]);
    for (let seq = 4; seq <= 100; seq += 4) expect(bridge.attempts.get(seq)).toBeGreaterThanOrEqual(2);
    const frames = [...bridge.received.values()].sort((a, b) => a.seq - b.seq);
    for (const f of frames) {
      expect(f.deviceId).toBe('udp-node-1');
      expect(Object.keys(f.fields)).toEqual(['temperature', 'humidity']);
      expect(typeof f.fields['temperature']).toBe('number');
    }
    expect(new Set(frames.map((f) => f.ts)).size).toBe(100);
  }, 20_000);

  it('gives up with a message and a non-zero exit when nothing is acknowledged', async () => {
    const bridge = await startBridge({ ack: false, lose: () => false });
    const r = await run(['127.0.0.1', String(bridge.port), 'udp-node-2', '5', '700']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/timeout after 700 ms: 0 of 5 acknowledged, 5 pending/);
    expect(r.ms).toBeLessThan(5000);
    expect(bridge.attempts.get(1)).toBeGreaterThanOrEqual(2); // it did resend before giving up
  }, 10_000);

  it('rejects bad arguments', async () => {
    const r = await run(['127.0.0.1', '9', 'bad id', '5']);
    expect(r.code).toBe(2);
  });
});
