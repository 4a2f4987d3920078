/**
 * The bytes of request bodies a server holds at once (src/server/body-budget.ts): reservations
 * that fit are granted and given back, those that do not are refused without reserving anything,
 * and bodies over 1 MiB together hold at most 3/4 of the budget. Over HTTP, a body that does not
 * fit is answered with a ThrottlingException before it is read, and small requests go on being
 * served while large bodies hold their share.
 */
import { describe, expect, it } from 'vitest';
import { BodyBudget } from '../../src/server/body-budget.js';
import { startServer } from '../../src/server/start-server.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { call, send } from './raw-http.js';
import { eventually, PUT_HEAD, rawSocket } from './raw-socket.js';

const MiB = 1024 * 1024;

describe('body budget', () => {
  it('grants reservations while they fit and takes them back on release', () => {
    const budget = new BodyBudget(2 * MiB);
    const a = budget.reserve(600 * 1024)!;
    const b = budget.reserve(600 * 1024)!;
    expect(budget.stats()).toEqual({ heldBytes: 1200 * 1024, heldLargeBytes: 0, refusedRequests: 0 });
    expect(budget.reserve(900 * 1024)).toBeUndefined();
    expect(budget.stats().heldBytes).toBe(1200 * 1024);
    a.release();
    a.release(); // twice is harmless
    expect(budget.reserve(900 * 1024)).toBeDefined();
    expect(budget.stats().heldBytes).toBe(1500 * 1024);
    b.release();
    expect(b.grow(1)).toBe(false); // a released hold reserves nothing more
    expect(budget.stats().heldBytes).toBe(900 * 1024);
  });

  it('keeps a quarter of the budget for bodies of at most 1 MiB', () => {
    const budget = new BodyBudget(8 * MiB); // large bodies: 6 MiB together
    expect(budget.reserve(4 * MiB)).toBeDefined();
    expect(budget.reserve(3 * MiB)).toBeUndefined(); // 7 MiB of large bodies, though 7 <= 8
    expect(budget.reserve(2 * MiB)).toBeDefined();
    expect(budget.stats()).toEqual({ heldBytes: 6 * MiB, heldLargeBytes: 6 * MiB, refusedRequests: 0 });
    const small = [budget.reserve(MiB), budget.reserve(MiB)];
    expect(small.every((h) => h !== undefined)).toBe(true);
    expect(budget.reserve(1)).toBeUndefined(); // the whole budget is held now
  });

  it('counts a growing (chunked) body as large once it passes 1 MiB', () => {
    const budget = new BodyBudget(4 * MiB); // large bodies: 3 MiB together
    const chunked = budget.reserve(0)!;
    expect(chunked.bytes).toBe(0);
    expect(chunked.grow(MiB)).toBe(true);
    expect(budget.stats().heldLargeBytes).toBe(0);
    expect(chunked.grow(MiB)).toBe(true);
    expect(budget.stats()).toMatchObject({ heldBytes: 2 * MiB, heldLargeBytes: 2 * MiB });
    expect(chunked.grow(1.5 * MiB)).toBe(false); // 3.5 MiB of large bodies
    expect(chunked.bytes).toBe(2 * MiB);
    expect(budget.reserve(MiB)).toBeDefined(); // the small quarter is still free
    chunked.release();
    expect(budget.stats()).toMatchObject({ heldBytes: MiB, heldLargeBytes: 0 });
  });

  it('counts the requests refused for want of budget', () => {
    const budget = new BodyBudget(MiB);
    budget.refused();
    budget.refused();
    expect(budget.stats().refusedRequests).toBe(2);
  });
});

describe('body budget over HTTP', () => {
  const temp = useTempDbs();
  const THROTTLED = {
    __type: 'com.amazon.coral.availability#ThrottlingException',
    message: `The server is receiving too many request bodies at once (at most ${4 * MiB} bytes in flight); retry later`,
  };

  async function serve() {
    const db = temp.open();
    db.createTable(tableRequest('Things', ['id', 'S']));
    // Large bodies (over 1 MiB) may hold 3 MiB together.
    return startServer({ db, port: 0, maxBodyBytes: 2 * MiB, maxBodyBytesInFlight: 4 * MiB });
  }

  it('a declared body that does not fit is answered ThrottlingException at once, unread; small requests are still served', async () => {
    const server = await serve();
    const holder = await rawSocket(server.port);
    try {
      holder.socket.write(PUT_HEAD(server.port, 2 * MiB) + 'x'.repeat(MiB)); // half sent, then waits
      expect(await eventually(() => server.limitStats().bodies.heldBytes === 2 * MiB)).toBe(true);
      const started = performance.now();
      // Declares 2 MiB and sends one byte: the answer cannot be waiting for the rest.
      const refused = await send(server.port, {
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem', 'content-length': String(2 * MiB) },
        stream: (req) => req.write('{'),
      });
      expect(refused.status).toBe(400);
      expect(refused.headers['connection']).toBe('close');
      expect(JSON.parse(refused.text)).toEqual(THROTTLED);
      expect(performance.now() - started).toBeLessThan(2_000);
      const put = await call(server.port, 'PutItem', { TableName: 'Things', Item: { id: { S: 'small' }, v: { S: 'y'.repeat(300_000) } } });
      expect(put.status).toBe(200);
      expect(server.limitStats().bodies).toEqual({ heldBytes: 2 * MiB, heldLargeBytes: 2 * MiB, refusedRequests: 1 });
      holder.socket.destroy();
      expect(await eventually(() => server.limitStats().bodies.heldBytes === 0)).toBe(true);
    } finally {
      holder.socket.destroy();
      await server.close();
    }
  });

  it('a chunked body is reserved as it arrives and answered ThrottlingException when the next chunk does not fit', async () => {
    const server = await serve();
    const holder = await rawSocket(server.port);
    try {
      holder.socket.write(PUT_HEAD(server.port, 2 * MiB));
      expect(await eventually(() => server.limitStats().bodies.heldBytes === 2 * MiB)).toBe(true);
      let sent = 0;
      const refused = await send(server.port, {
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem', 'transfer-encoding': 'chunked' },
        stream: (req) => {
          const pump = (): void => {
            if (req.destroyed || sent >= 4 * MiB) return void req.end();
            req.write(Buffer.alloc(64 * 1024, 0x61), () => setTimeout(pump, 1));
            sent += 64 * 1024;
          };
          pump();
        },
      });
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text)).toEqual(THROTTLED);
      // Refused once its reservation passed the 1 MiB left to large bodies, well before its end.
      expect(sent).toBeLessThan(3 * MiB);
      expect(server.limitStats().bodies).toMatchObject({ heldBytes: 2 * MiB, refusedRequests: 1 });
    } finally {
      holder.socket.destroy();
      await server.close();
    }
  });
});
