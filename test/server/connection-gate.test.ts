/**
 * The cap on open connections (src/server/connection-gate.ts), over real sockets: at the cap a
 * new connection takes the place of the longest-idle one (a slowloris's connections never finish
 * their headers, so they are idle), and only when every connection has a request in progress is a
 * new one refused, with DynamoDB's 503 ServiceUnavailable, and closed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { call } from './raw-http.js';
import { eventually, PUT_HEAD, rawSocket, type RawSocket } from './raw-socket.js';

const temp = useTempDbs();
let db: Edgetable;
let server: RunningServer;
const sockets: RawSocket[] = [];

beforeEach(async () => {
  db = temp.open();
  db.createTable(tableRequest('Things', ['id', 'S']));
  server = await startServer({ db, port: 0, maxConnections: 2 });
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.socket.destroy();
  await server.close();
});

async function open(): Promise<RawSocket> {
  const s = await rawSocket(server.port);
  sockets.push(s);
  return s;
}

const getThing = () => call(server.port, 'GetItem', { TableName: 'Things', Key: { id: { S: 'a' } } });

describe('connection cap', () => {
  it('at the cap, a new connection closes the longest-idle one and is served', async () => {
    const first = await open();
    first.socket.write('POST / HTTP/1.1\r\n'); // a slowloris: headers begun, never finished
    const second = await open();
    expect(await eventually(() => server.limitStats().connections.open === 2)).toBe(true);
    const r = await getThing();
    expect(r.status).toBe(200);
    await first.closed;
    expect(second.isClosed()).toBe(false);
    expect(server.limitStats().connections).toMatchObject({ evicted: 1, refused: 0 });
  });

  it('when every connection has a request in progress, a new one is answered 503 ServiceUnavailable and closed', async () => {
    const busy = [await open(), await open()];
    for (const s of busy) s.socket.write(PUT_HEAD(server.port, 100) + '{"TableName":'); // body unfinished
    expect(await eventually(() => server.limitStats().connections.busy === 2)).toBe(true);
    const refused = await getThing();
    expect(refused.status).toBe(503);
    expect(refused.headers['connection']).toBe('close');
    expect(JSON.parse(refused.text)).toEqual({
      __type: 'com.amazonaws.dynamodb.v20120810#ServiceUnavailable',
      message: 'The server has 2 open connections, each with a request in progress; retry later',
    });
    expect(server.limitStats().connections).toMatchObject({ open: 2, busy: 2, refused: 1, evicted: 0 });
    busy[0]!.socket.destroy();
    expect(await eventually(() => server.limitStats().connections.open === 1)).toBe(true);
    expect((await getThing()).status).toBe(200);
  });

  it('a connection answered and kept alive is idle again, and can be the one that makes room', async () => {
    const kept = await open();
    kept.socket.write(`GET / HTTP/1.1\r\nhost: x\r\n\r\n`);
    expect(await eventually(() => kept.received().includes('healthy: dynamodb'))).toBe(true);
    const other = await open();
    other.socket.write(PUT_HEAD(server.port, 100)); // in progress: not to be evicted
    expect(await eventually(() => server.limitStats().connections.busy === 1)).toBe(true);
    expect((await getThing()).status).toBe(200);
    await kept.closed;
    expect(other.isClosed()).toBe(false);
  });
});
