/**
 * Security defaults of the HTTP server (issue 9 part 6, server half): it listens on 127.0.0.1
 * unless told otherwise, refuses an oversized body while it streams in (before reading it whole
 * and before any operation runs), and enforces item limits before any write txn.
 */
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { startServer } from '../../src/server/start-server.js';
import { seedTable, useTempDirs } from './harness/fixture.js';
import { TABLE } from './harness/workload.js';

const temp = useTempDirs('edgetable-security-');

function seeded(): Edgetable {
  const db = temp.track(open({ path: join(temp.dir(), 'db') }));
  seedTable(db);
  return db;
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

describe('server security defaults', () => {
  it('listens on 127.0.0.1 by default: not reachable on the machine\'s other addresses', async () => {
    const server = await startServer({ db: seeded(), port: 0 });
    try {
      expect(server.host).toBe('127.0.0.1');
      expect(await canConnect('127.0.0.1', server.port)).toBe(true);
      const external = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
      if (external) expect(await canConnect(external.address, server.port)).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('refuses a chunked body past the limit while it streams: 413 before the client has sent it all, no operation run', async () => {
    const db = seeded();
    let executed = 0;
    const counting = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === 'execute') return (...args: Parameters<Edgetable['execute']>) => (executed++, target.execute(...args));
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    const maxBodyBytes = 64 * 1024;
    const server = await startServer({ db: counting, port: 0, maxBodyBytes });
    try {
      const txnBefore = db.store.stats().lastTxnId;
      const { status, body, sentBytes } = await new Promise<{ status: number; body: string; sentBytes: number }>((resolve, reject) => {
        let sent = 0;
        let answered = false;
        const req = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/', headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem', 'transfer-encoding': 'chunked' } }, (res) => {
          answered = true;
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, sentBytes: sent }));
        });
        req.on('error', (e) => (answered ? undefined : reject(e)));
        // 16 KiB every 10 ms, up to 64 MiB: the answer must come long before the end.
        const chunk = Buffer.alloc(16 * 1024, 0x61);
        const pump = (): void => {
          if (answered || sent >= 64 * 1024 * 1024) return void req.end();
          req.write(chunk);
          sent += chunk.length;
          setTimeout(pump, 10);
        };
        req.write(`{"TableName":"${TABLE}","Item":{"pk":{"S":"`);
        pump();
      });
      expect(status).toBe(413);
      expect(JSON.parse(body)).toEqual({ __type: 'com.amazon.coral.validate#ValidationException', message: `Request size exceeded the limit of ${maxBodyBytes} bytes` });
      expect(sentBytes).toBeLessThan(4 * 1024 * 1024);
      expect(executed).toBe(0);
      expect(db.store.stats().lastTxnId).toBe(txnBefore);
    } finally {
      await server.close();
    }
  });

  it('refuses a declared Content-Length past the limit before reading the body', async () => {
    const server = await startServer({ db: seeded(), port: 0, maxBodyBytes: 1024 });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/', headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem', 'content-length': String(10 * 1024 * 1024) } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.write('{'); // announce 10 MiB, send one byte: the answer must not wait for the rest
      });
      expect(status).toBe(413);
    } finally {
      await server.close();
    }
  });

  it('an item over 400 KB is refused with ValidationException before any write txn', async () => {
    const db = seeded();
    const server = await startServer({ db, port: 0 });
    try {
      const txnBefore = db.store.stats().lastTxnId;
      const res = await fetch(`http://127.0.0.1:${server.port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem', 'x-amz-date': '20260101T000000Z', authorization: 'AWS4-HMAC-SHA256 Credential=edge/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00' },
        body: JSON.stringify({ TableName: TABLE, Item: { pk: { S: 'big' }, sk: { N: '1' }, v: { S: 'x'.repeat(401 * 1024) } } }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ __type: 'com.amazon.coral.validate#ValidationException', message: 'Item size has exceeded the maximum allowed size' });
      expect(db.store.stats().lastTxnId).toBe(txnBefore);
    } finally {
      await server.close();
    }
  });
});
