/**
 * Hostile DynamoDB JSON over HTTP (issue 9 part 3): random and malformed bodies against every
 * operation target. Never a 500, never a dropped connection; every rejection is DynamoDB-shaped
 * (`__type` naming the exception, a string message) and commits nothing (the store's last txn id
 * does not move); afterwards the indexes still verify and the heap has not grown without bound.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { handleDynamoRequest } from '../../src/server/dynamo-request.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { budgetMs, fuzzFor, settledHeapBytes } from './harness/fuzz-budget.js';
import { seedTable, snapshot } from './harness/fixture.js';
import { hostileRequests } from './harness/hostile-requests.js';
import { TABLE } from './harness/workload.js';

let db: Edgetable;
let server: RunningServer;
let folder: string;
const internalErrors: unknown[] = [];

// One store for the file: its folder lives as long as the store (a folder removed under an open
// store is fine for LMDB's open descriptors, not for a redo log that begins files by name).
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'edgetable-hostile-http-'));
  db = open({ path: join(folder, 'db') });
  seedTable(db);
  server = await startServer({ db, port: 0, onInternalError: (e) => internalErrors.push(e) });
});
afterAll(async () => {
  await server.close();
  db.close();
  rmSync(folder, { recursive: true, force: true });
});

type Outcome = { status: number; text: string };

/** Checks one answer; returns the problem, if any. */
function judge(target: string, body: string | Uint8Array, { status, text }: Outcome, txnBefore: number, types: Map<string, number>): string | undefined {
  if (status === 200) return undefined;
  let parsed: { __type?: unknown; message?: unknown; Message?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return `${target}: non-JSON ${status} body ${text.slice(0, 80)}`;
  }
  const type = typeof parsed.__type === 'string' ? parsed.__type : '';
  const name = type.split('#')[1] ?? type;
  types.set(name, (types.get(name) ?? 0) + 1);
  const message = parsed.message ?? parsed.Message;
  // The service answers unparseable bodies and unknown targets with a bare __type, no message.
  const bare = name === 'SerializationException' || name === 'UnknownOperationException';
  if (!/^com\.amaz[a-z.0-9]+#[A-Za-z]+$/.test(type) || (typeof message !== 'string' && !(bare && message === undefined))) return `${target}: not DynamoDB-shaped: ${text.slice(0, 120)}`;
  if (status >= 500) return `${target}: ${status} ${text.slice(0, 200)} for ${String(body).slice(0, 200)}`;
  if (db.store.stats().lastTxnId !== txnBefore) return `${target}: rejected (${type}) but committed a txn`;
  return undefined;
}

async function fuzzTransport(label: string, ms: number, seed: number, send: (target: string, body: string | Uint8Array) => Promise<Outcome>): Promise<void> {
  const statuses = new Map<number, number>();
  const types = new Map<string, number>();
  const problems: string[] = [];
  const heapBefore = settledHeapBytes();
  const tried = await fuzzFor(hostileRequests, ms, seed, async ({ target, body }) => {
    const txnBefore = db.store.stats().lastTxnId;
    const outcome = await send(target, body);
    statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
    const problem = judge(target, body, outcome, txnBefore, types);
    if (problem !== undefined) problems.push(problem);
    if (!db.listTables().TableNames?.includes(TABLE)) seedTable(db);
  });
  const heapGrowth = settledHeapBytes() - heapBefore;
  console.log(
    `hostile ${label}: ${tried} requests; statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
      `rejections ${JSON.stringify(Object.fromEntries(types))}; heap growth ${(heapGrowth / 1024 / 1024).toFixed(1)} MiB`,
  );
  expect(problems.slice(0, 10)).toEqual([]);
  expect(internalErrors).toEqual([]);
  expect(tried).toBeGreaterThan(20);
  expect(statuses.get(200) ?? 0).toBeGreaterThan(0); // the fuzz also reaches real work
  expect(heapGrowth).toBeLessThan(64 * 1024 * 1024);
  const after = snapshot(db);
  expect(after.indexDifferences).toBe(0);
  expect(after.ItemCount).toBe(after.items.length);
}

const headers = (target: string) => ({ 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target, 'x-amz-date': '20260101T000000Z', authorization: 'AWS4-HMAC-SHA256 Credential=edge/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00' });

describe('hostile DynamoDB JSON', () => {
  it('in-process (the protocol function the server and the SDK adapter share): never a 500, rejections DynamoDB-shaped, nothing committed', async () => {
    await fuzzTransport('protocol', budgetMs(10_000), 1, async (target, body) => {
      const r = handleDynamoRequest(db, { method: 'POST', path: '/', headers: headers(target), body: typeof body === 'string' ? Buffer.from(body) : body }, { onInternalError: (e) => internalErrors.push(e) });
      return { status: r.statusCode, text: Buffer.from(r.body).toString('utf8') };
    });
  }, 120_000);

  it('over HTTP: the same, through node:http and keep-alive connections', async () => {
    const url = `http://127.0.0.1:${server.port}/`;
    await fuzzTransport('HTTP', budgetMs(6_000), 2, async (target, body) => {
      const res = await fetch(url, { method: 'POST', headers: headers(target), body });
      return { status: res.status, text: await res.text() };
    });
  }, 120_000);
});
