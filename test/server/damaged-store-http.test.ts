/**
 * Issue 45: /metrics and the health check answer whatever the store's state. Damage that appears
 * while the store is open (here: pages zeroed under a running server) is found by the periodic
 * check in a child process, and /metrics says so with edgetable_store_corrupt 1 instead of going
 * dark; GET / (the health check) still answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { open, type Edgetable } from '../../src/edgetable.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { knownDamage } from '../../src/storage/store-health.js';
import { damages, writeStore } from '../storage/fixtures/damaged-store.js';
import { parseExposition, valueOf } from '../metrics/parse-exposition.js';
import { send } from './raw-http.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function corruptFlag(port: number): Promise<number | undefined> {
  const r = await send(port, { method: 'GET', path: '/metrics' });
  expect(r.status).toBe(200);
  return valueOf(parseExposition(r.text).samples, 'edgetable_store_corrupt');
}

describe('a store damaged while a server has it open', () => {
  it('the periodic check names it: /metrics answers 200 with edgetable_store_corrupt 1, the health check answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-http-damage-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'db');
    writeStore(path, 3000);
    const db: Edgetable = open({ path, checkIntervalMs: 300, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
    cleanup.push(() => db.close());
    const server: RunningServer = await startServer({ db, port: 0 });
    cleanup.push(() => server.close());

    expect(await corruptFlag(server.port)).toBe(0);
    damages['zeroed pages'](path); // leaf pages of the table: nothing this test reads goes near them
    const deadline = Date.now() + 45_000; // the check's child starts through tsx here: seconds on a loaded machine
    while (knownDamage(path) === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(knownDamage(path)).toMatch(/holds the number of page 0/);
    expect(await corruptFlag(server.port)).toBe(1);
    const health = await send(server.port, { method: 'GET', path: '/' });
    expect(health.status).toBe(200);
  });
});
