import { Agent } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { call } from './raw-http.js';

const temp = useTempDbs();
const servers: RunningServer[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const a of agents.splice(0)) a.destroy();
});

async function serve(groupCommit: Parameters<typeof startServer>[0]['groupCommit']): Promise<{ db: Edgetable; server: RunningServer; agent: Agent }> {
  const db = temp.open();
  db.createTable(tableRequest('Tab', ['id', 'S']));
  const server = await startServer({ db, port: 0, ...(groupCommit !== undefined ? { groupCommit } : {}) });
  servers.push(server);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  agents.push(agent);
  return { db, server, agent };
}

const N = 24;

/** N concurrent PutItems; #5 carries a condition that fails on the item it targets. */
async function concurrentPuts(port: number, agent: Agent) {
  return Promise.all(
    Array.from({ length: N }, (_, i) =>
      call(
        port,
        'PutItem',
        i === 5
          ? { TableName: 'Tab', Item: { id: { S: 'seed' }, v: { N: '5' } }, ConditionExpression: 'attribute_not_exists(id)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }
          : { TableName: 'Tab', Item: { id: { S: `k${i}` }, v: { N: String(i) } }, ReturnValues: 'ALL_OLD' },
        { agent },
      ),
    ),
  );
}

describe('server group commit', () => {
  it('concurrent PutItems share commits and each gets its own response', async () => {
    const { db, server, agent } = await serve({ windowMs: 2, maxRequests: 64 });
    db.putItem({ TableName: 'Tab', Item: { id: { S: 'seed' }, v: { N: '0' } } });
    db.putItem({ TableName: 'Tab', Item: { id: { S: 'k7' }, v: { N: '70' } } });
    const commits = db.store.stats().commits;

    const responses = await concurrentPuts(server.port, agent);

    responses.forEach((r, i) => {
      if (i === 5) {
        expect(r.status).toBe(400);
        expect(JSON.parse(r.text)).toEqual({
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
          Item: { id: { S: 'seed' }, v: { N: '0' } },
        });
      } else {
        expect(r.status, r.text).toBe(200);
        expect(JSON.parse(r.text)).toEqual(i === 7 ? { Attributes: { id: { S: 'k7' }, v: { N: '70' } } } : {});
      }
    });
    const used = db.store.stats().commits - commits;
    expect(used).toBeGreaterThanOrEqual(1);
    expect(used).toBeLessThan(N / 2); // shared: far fewer commits than requests
    const stats = server.groupCommitStats()!;
    expect(stats.requests).toBe(N);
    expect(stats.largestGroup).toBeGreaterThan(1);
    // every successful put is there, the conditional one did not overwrite the seed
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'seed' } } }).Item).toEqual({ id: { S: 'seed' }, v: { N: '0' } });
    expect(db.scan({ TableName: 'Tab', Select: 'COUNT' }).Count).toBe(N); // k0..k23 but k5, and the seed
  });

  it('with groupCommit false every write commits on its own', async () => {
    const { db, server, agent } = await serve(false);
    db.putItem({ TableName: 'Tab', Item: { id: { S: 'seed' }, v: { N: '0' } } });
    const commits = db.store.stats().commits;
    const responses = await concurrentPuts(server.port, agent);
    expect(responses.map((r) => r.status).filter((s) => s === 200)).toHaveLength(N - 1);
    expect(db.store.stats().commits - commits).toBe(N - 1);
    expect(server.groupCommitStats()).toBeUndefined();
  });

  it('reads are answered without waiting for a pending group', async () => {
    const { db, server, agent } = await serve({ windowMs: 300, maxRequests: 1000 });
    db.putItem({ TableName: 'Tab', Item: { id: { S: 'a' }, v: { N: '1' } } });
    const started = performance.now();
    const write = call(server.port, 'PutItem', { TableName: 'Tab', Item: { id: { S: 'b' } } }, { agent });
    const read = await call(server.port, 'GetItem', { TableName: 'Tab', Key: { id: { S: 'a' } } }, { agent });
    const readMs = performance.now() - started;
    expect(read.status).toBe(200);
    expect(JSON.parse(read.text)).toEqual({ Item: { id: { S: 'a' }, v: { N: '1' } } });
    expect(readMs).toBeLessThan(250);
    // the write is only acknowledged once its group committed, after the window
    expect((await write).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'b' } } }).Item).toEqual({ id: { S: 'b' } });
  });

  it('close() commits a pending group at once and answers its writes', async () => {
    const { db, server, agent } = await serve({ windowMs: 60_000, maxRequests: 1000 });
    const started = performance.now();
    const write = call(server.port, 'PutItem', { TableName: 'Tab', Item: { id: { S: 'late' } } }, { agent });
    await new Promise((r) => setTimeout(r, 100)); // the request is queued in its group
    await server.close();
    expect((await write).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'late' } } }).Item).toEqual({ id: { S: 'late' } });
  });

  it('a group runs as soon as it holds maxRequests', async () => {
    const { server, agent } = await serve({ windowMs: 60_000, maxRequests: 4 });
    const started = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(server.port, 'PutItem', { TableName: 'Tab', Item: { id: { S: `m${i}` } } }, { agent })),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.groupCommitStats()).toMatchObject({ groups: 2, requests: 8, largestGroup: 4 });
  });
});
