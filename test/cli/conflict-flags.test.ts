/** `--version-attribute <table>=<attribute>` of `hub` and `sync` (src/cli/conflict-flags.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { conflictRules } from '../../src/cli/conflict-flags.js';
import { writeSyncStatusFile } from '../../src/cli/sync-status-file.js';
import { open } from '../../src/edgetable.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('--version-attribute', () => {
  it('names a version rule per table; absent means last-writer-wins everywhere', () => {
    expect(conflictRules({ versionAttribute: ['WorkOrders=version', 'Visits = rev'] })).toEqual({
      WorkOrders: { strategy: 'version', attribute: 'version' },
      Visits: { strategy: 'version', attribute: 'rev' },
    });
    expect(conflictRules({})).toBeUndefined();
  });

  it('refuses a value without a table or an attribute, before connecting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-conflicts-'));
    dirs.push(dir);
    for (const command of ['hub', 'sync']) {
      for (const bad of ['WorkOrders', '=version', 'WorkOrders=']) {
        let err = '';
        const args = [command, '--path', dir, '--url', 'mqtt://127.0.0.1:9', ...(command === 'sync' ? ['--device', 'd-1', '--table', 'T'] : []), '--version-attribute', bad];
        const code = await main(args, { out: () => undefined, err: (t) => void (err += t), errIsTty: false });
        expect({ code, err }).toEqual({ code: 2, err: `error: --version-attribute takes <table>=<attribute>, not ${JSON.stringify(bad)}\n` });
      }
    }
  });

  it('sync-status shows the writes the hub refused, as the running sync last reported them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-conflicts-'));
    dirs.push(dir);
    open({ path: dir }).close();
    const rejection = { table: 'WorkOrders', keys: { id: { S: 'job-1' } }, item: { id: { S: 'job-1' }, version: { N: '2' } }, reason: "version 2 is not the hub's version 2 + 1", restored: true, atMs: 1 };
    writeSyncStatusFile(dir, { format: 1, pid: process.pid, running: true, deviceId: 'van-b', url: 'mqtt://127.0.0.1:9', tables: ['WorkOrders'], online: true, since: 0, batchesSent: 3, recordsAcked: 3, rejectedWrites: 1, lastRejections: [rejection], updatedAt: 1 });
    let out = '';
    expect(await main(['sync-status', '--path', dir], { out: (t) => void (out += t), err: () => undefined, errIsTty: false })).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/3 records acknowledged, 1 writes refused by the hub$/);
    expect(lines).toContain(`WorkOrders {"id":{"S":"job-1"}}: the hub refused this device's write (version 2 is not the hub's version 2 + 1); the local copy is the hub's again`);
  });
});
