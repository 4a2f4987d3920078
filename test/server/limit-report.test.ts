/**
 * What the request limits refused reaches the operator (src/server/limit-report.ts): one warning
 * per period with the counts, none in a period without refusals.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { configureLogging } from '../../src/log/logger.js';
import { startServer } from '../../src/server/start-server.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { call } from './raw-http.js';
import { eventually, rawSocket } from './raw-socket.js';

const temp = useTempDbs();
afterEach(() => configureLogging());

describe('limit reports', () => {
  it('logs one warning per period in which connections were closed or refused or bodies throttled, with the counts', async () => {
    const lines: Record<string, unknown>[] = [];
    configureLogging({ level: 'info', sink: { write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) } });
    const db = temp.open();
    db.createTable(tableRequest('Things', ['id', 'S']));
    const server = await startServer({ db, port: 0, maxConnections: 1, limitReportMs: 200 });
    try {
      await new Promise((r) => setTimeout(r, 450)); // quiet periods say nothing
      expect(lines).toEqual([]);
      const idle = await rawSocket(server.port);
      expect(await eventually(() => server.limitStats().connections.open === 1)).toBe(true);
      expect((await call(server.port, 'GetItem', { TableName: 'Things', Key: { id: { S: 'a' } } })).status).toBe(200);
      await idle.closed;
      expect(await eventually(() => lines.length > 0, 2_000)).toBe(true);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'warn',
          component: 'server',
          evicted: 1,
          refused: 0,
          throttled: 0,
          msg: 'request limits in the last 0.2 s: 1 idle connections closed for new ones, 0 connections refused (all busy), 0 requests throttled (bodies in flight)',
        }),
      ]);
      await new Promise((r) => setTimeout(r, 450));
      expect(lines).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
