/**
 * The request limits' options (src/server/request-limits.ts): defaults sized for a device, DynamoDB's
 * 16 MiB as the ceiling of one body, and options that cannot work together refused at start; and
 * the timeouts over real sockets: a client slower than them is answered 408 and closed.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_REQUEST_LIMITS, resolveRequestLimits } from '../../src/server/request-limits.js';
import { startServer } from '../../src/server/start-server.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { PUT_HEAD, rawSocket } from './raw-socket.js';

const MiB = 1024 * 1024;

describe('request limits', () => {
  it('default to 128 connections, 16 MiB per body, 24 MiB of bodies in flight, 10 s for headers, 60 s per request, 5 s keep-alive', () => {
    expect(resolveRequestLimits()).toEqual({
      maxConnections: 128,
      maxBodyBytes: 16 * MiB,
      maxBodyBytesInFlight: 24 * MiB,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 5_000,
    });
  });

  it('take the limits from options that carry others too, undefined ones as defaults', () => {
    const resolved = resolveRequestLimits({ maxConnections: 8, headersTimeoutMs: undefined, port: 0, db: {} } as never);
    expect(resolved).toEqual({ ...DEFAULT_REQUEST_LIMITS, maxConnections: 8 });
  });

  it("refuse a body limit above DynamoDB's 16 MiB", () => {
    expect(() => resolveRequestLimits({ maxBodyBytes: 16 * MiB + 1 })).toThrow(/^maxBodyBytes must be at most 16777216 \(DynamoDB's 16 MiB request limit\), not 16777217$/);
    expect(resolveRequestLimits({ maxBodyBytes: 64 * 1024 }).maxBodyBytes).toBe(64 * 1024);
  });

  it.each([
    ['maxConnections', 0],
    ['maxBodyBytes', -1],
    ['maxBodyBytesInFlight', 1.5],
    ['headersTimeoutMs', Number.NaN],
    ['keepAliveTimeoutMs', '5000'],
  ])('refuse %s = %s: every limit is a positive integer', (name, value) => {
    expect(() => resolveRequestLimits({ [name]: value } as never)).toThrow(new RegExp(`^${name} must be a positive integer`));
  });

  it('refuse an in-flight budget in which one body of the largest size could never be received', () => {
    expect(() => resolveRequestLimits({ maxBodyBytes: 16 * MiB, maxBodyBytesInFlight: 16 * MiB })).toThrow(/must be at least 4\/3 of maxBodyBytes/);
    expect(resolveRequestLimits({ maxBodyBytes: 12 * MiB, maxBodyBytesInFlight: 16 * MiB }).maxBodyBytesInFlight).toBe(16 * MiB);
    // Bodies of at most 1 MiB are small: any budget that holds one will do.
    expect(resolveRequestLimits({ maxBodyBytes: MiB, maxBodyBytesInFlight: MiB }).maxBodyBytes).toBe(MiB);
  });

  it('refuse a headers timeout longer than the request timeout', () => {
    expect(() => resolveRequestLimits({ headersTimeoutMs: 20_000, requestTimeoutMs: 10_000 })).toThrow('headersTimeoutMs (20000) must not exceed requestTimeoutMs (10000)');
  });
});

describe('timeouts, over a socket', () => {
  const temp = useTempDbs();

  async function withServer(limits: Parameters<typeof resolveRequestLimits>[0], body: (port: number) => Promise<void>): Promise<void> {
    const db = temp.open();
    db.createTable(tableRequest('Things', ['id', 'S']));
    const server = await startServer({ db, port: 0, ...limits });
    try {
      await body(server.port);
      // The server gives a closed connection's bytes back on its own 'close', which may come a
      // moment after the client saw the socket close.
      const deadline = Date.now() + 2_000;
      while (server.limitStats().bodies.heldBytes !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(server.limitStats().bodies.heldBytes).toBe(0);
    } finally {
      await server.close();
    }
  }

  /** Writes `piece` every 100 ms until the socket closes; resolves with the ms it stayed open and what it got. */
  async function trickle(port: number, first: string, piece: string): Promise<{ ms: number; received: string }> {
    const s = await rawSocket(port);
    s.socket.write(first);
    const timer = setInterval(() => s.isClosed() || s.socket.write(piece), 100);
    const ms = await Promise.race([s.closed, new Promise<number>((r) => setTimeout(() => r(Infinity), 8_000))]);
    clearInterval(timer);
    s.socket.destroy();
    return { ms, received: s.received() };
  }

  it('a client that trickles its headers is answered 408 and closed once headersTimeoutMs have passed', async () => {
    await withServer({ headersTimeoutMs: 500, requestTimeoutMs: 5_000 }, async (port) => {
      const { ms, received } = await trickle(port, 'POST / HTTP/1.1\r\n', 'x-slow: 1\r\n');
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(ms).toBeGreaterThanOrEqual(450);
      expect(ms).toBeLessThan(3_000);
    });
  });

  it('a client that sends nothing at all is closed by the same timeout', async () => {
    await withServer({ headersTimeoutMs: 500, requestTimeoutMs: 5_000 }, async (port) => {
      const s = await rawSocket(port);
      const ms = await Promise.race([s.closed, new Promise<number>((r) => setTimeout(() => r(Infinity), 8_000))]);
      s.socket.destroy();
      expect(ms).toBeLessThan(3_000);
    });
  });

  it('a client that trickles its body is answered 408 and closed once requestTimeoutMs have passed; its body bytes are given back', async () => {
    await withServer({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 }, async (port) => {
      const { ms, received } = await trickle(port, PUT_HEAD(port, 10_000), 'aaaaaaaaaa');
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(ms).toBeGreaterThanOrEqual(950);
      expect(ms).toBeLessThan(4_000);
    });
  });
});
