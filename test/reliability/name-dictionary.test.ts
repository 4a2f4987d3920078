/**
 * Two processes on one folder share a table's attribute-name dictionary (issue 16.2): both add
 * names at once and read each other's items while doing so. Afterwards every acknowledged item
 * reads back with every name right, in both directions, and each name has exactly one code.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { AttributeNames } from '../../src/table/attribute-names.js';
import { forkWorker } from './harness/bundle-worker.js';
import { scanAll, useTempDbs } from '../ops/temp-db.js';

const dbs = useTempDbs();
const worker = join(dirname(fileURLToPath(import.meta.url)), 'harness', 'name-dictionary-worker.ts');
const DURATION_MS = Number(process.env.EDGETABLE_SHARED_FOLDER_MS ?? 4_000);

type Message = { t: string; keys?: string[]; detail?: string; writes?: number };

describe('several processes share a table\'s name dictionary', () => {
  it('codes assigned concurrently by two processes decode right in both, and each name has one code', async () => {
    const path = join(dbs.dir(), 'db');
    const setup = open({ path });
    setup.createTable({ TableName: 'Names', BillingMode: 'PAY_PER_REQUEST', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }] });
    setup.close();

    const acked = new Set<string>();
    const reports: Message[] = [];
    const children = ['1', '2'].map((id) => forkWorker(worker, [path, String(DURATION_MS), id]));
    await Promise.all(children.map((c) => new Promise<void>((ready) => {
      c.proc.on('message', (m: Message) => {
        if (m.t === 'ready') ready();
        else if (m.t === 'acks') for (const k of m.keys!) acked.add(k);
        else reports.push(m);
      });
    })));
    for (const c of children) c.proc.send({ t: 'go' });
    const codes = await Promise.all(children.map((c) => c.exited));
    const errors = reports.filter((r) => r.t === 'error').map((r) => r.detail);
    expect(errors, children.map((c) => c.output()).join('\n')).toEqual([]);
    expect(codes).toEqual([0, 0]);

    const db = dbs.open({ path });
    const items = scanAll(db, { TableName: 'Names' });
    expect(items.length).toBe(acked.size);
    for (const item of items) {
      const pk = (item.pk as { S: string }).S;
      expect(acked.has(pk)).toBe(true);
      expect(Object.keys(item)).toHaveLength(5);
      for (const [name, value] of Object.entries(item)) if (name !== 'pk') expect(value).toEqual({ S: `${name}:${pk}` });
    }
    const table = db.context.catalog.require('Names');
    const fresh = new AttributeNames(db.store, table.meta, table.names.keyNames);
    const names = db.store.read(() => {
      const found: string[] = [];
      for (let code = 0; fresh.nameOf(code) !== undefined; code++) found.push(fresh.nameOf(code)!);
      return found;
    });
    expect(new Set(names).size).toBe(names.length);
    console.log(`name dictionary: ${acked.size} items by two processes, ${names.length} codes`);
  }, 60_000);
});
