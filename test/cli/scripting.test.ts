/**
 * The CLI as a tool people script: every page of a Query or Scan, continuing from a key, plain
 * JSON in and out, import from standard input and how far a failed import got, the table
 * commands (delete-table, update-table, ttl) and progress on stderr.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { run, tempDir } from './run-cli.js';

/** A store with table Readings (site:S, ts:N) holding `count` items, 3 sites. */
function readingsStore(count: number): string {
  const path = join(tempDir(), 'db');
  const db = open({ path, ttlSweepIntervalMs: 0 });
  db.createTable({
    TableName: 'Readings',
    KeySchema: [{ AttributeName: 'site', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }],
    AttributeDefinitions: [{ AttributeName: 'site', AttributeType: 'S' }, { AttributeName: 'ts', AttributeType: 'N' }],
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 2,
  });
  for (let i = 0; i < count; i++) db.putItem({ TableName: 'Readings', Item: { site: { S: `s${i % 3}` }, ts: { N: String(i) }, t: { N: String(20 + (i % 7)) } } });
  db.close();
  return path;
}

const lines = (text: string): unknown[] => text.trimEnd().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

describe('query and scan: every page, and continuing from a key', () => {
  it('--all follows LastEvaluatedKey to the end and prints one response', async () => {
    const path = readingsStore(30);
    const all = await run(['scan', 'Readings', '--all', '--limit', '7', '--path', path]);
    expect(all.code).toBe(0);
    const body = JSON.parse(all.out);
    expect(body.Count).toBe(30);
    expect(body.ScannedCount).toBe(30);
    expect(body.LastEvaluatedKey).toBeUndefined();
    expect(new Set(body.Items.map((i: { ts: { N: string } }) => i.ts.N)).size).toBe(30);

    const q = JSON.parse((await run(['query', 'Readings', '--key-condition', 'site = :s', '--values', '{":s":{"S":"s1"}}', '--all', '--limit', '3', '--path', path])).out);
    expect(q.Items.map((i: { ts: { N: string } }) => Number(i.ts.N))).toEqual([1, 4, 7, 10, 13, 16, 19, 22, 25, 28]);
    expect(q.Count).toBe(10);
  });

  it('--start-key continues where a page stopped', async () => {
    const path = readingsStore(10);
    const values = '{":s":{"S":"s0"}}';
    const first = JSON.parse((await run(['query', 'Readings', '--key-condition', 'site = :s', '--values', values, '--limit', '2', '--path', path])).out);
    expect(first.Items.map((i: { ts: { N: string } }) => i.ts.N)).toEqual(['0', '3']);
    const rest = JSON.parse((await run(['query', 'Readings', '--key-condition', 'site = :s', '--values', values, '--start-key', JSON.stringify(first.LastEvaluatedKey), '--path', path])).out);
    expect(rest.Items.map((i: { ts: { N: string } }) => i.ts.N)).toEqual(['6', '9']);

    const plain = await run(['query', 'Readings', '--key-condition', 'site = :s', '--values', '{":s":"s0"}', '--plain', '--limit', '1', '--start-key', '{"site":"s0","ts":3}', '--path', path]);
    expect(lines(plain.out)).toEqual([{ site: 's0', ts: 6, t: 26 }]);
    expect(plain.err).toBe(`more items: --start-key '{"site":{"S":"s0"},"ts":{"N":"6"}}'\n`);
  });

  it('scan --all --plain prints JSON lines, with progress lines on a non-terminal stderr', async () => {
    const path = readingsStore(12);
    const r = await run(['scan', 'Readings', '--all', '--plain', '--limit', '5', '--path', path], { progressIntervalMs: 0 });
    expect(lines(r.out)).toHaveLength(12);
    expect(r.err.split('\n').filter((l) => l !== '')).toEqual([
      'scan Readings [##########--------------] 41% 5/12 items',
      'scan Readings [####################----] 83% 10/12 items',
      'scan Readings [########################] 100% 12/12 items',
      expect.stringMatching(/^scan Readings \[#{24}\] 100% 12\/12 items \(done in \d+\.\d s\)$/),
    ]);
  });
});

describe('plain JSON', () => {
  it('put, get and delete take and give plain JSON, marshalled as lib-dynamodb does', async () => {
    const path = readingsStore(0);
    const item = { site: 'a', ts: 1.5, ok: true, none: null, list: [1, 'x', { deep: [false] }], map: { n: -3, s: '' } };
    expect(await run(['put', 'Readings', JSON.stringify(item), '--plain', '--path', path])).toEqual({ code: 0, out: '{}\n', err: '' });
    const wire = JSON.parse((await run(['get', 'Readings', '{"site":{"S":"a"},"ts":{"N":"1.5"}}', '--path', path])).out).Item;
    expect(wire).toEqual({
      site: { S: 'a' },
      ts: { N: '1.5' },
      ok: { BOOL: true },
      none: { NULL: true },
      list: { L: [{ N: '1' }, { S: 'x' }, { M: { deep: { L: [{ BOOL: false }] } } }] },
      map: { M: { n: { N: '-3' }, s: { S: '' } } },
    });
    expect(lines((await run(['get', 'Readings', '{"site":"a","ts":1.5}', '--plain', '--path', path])).out)).toEqual([item]);
    expect((await run(['get', 'Readings', '{"site":"zz","ts":1}', '--plain', '--path', path])).out).toBe('null\n');
    expect(lines((await run(['delete', 'Readings', '{"site":"a","ts":1.5}', '--plain', '--path', path])).out)).toEqual([item]);
    expect((await run(['get', 'Readings', '{"site":"a","ts":1.5}', '--plain', '--path', path])).out).toBe('null\n');
  });

  it('prints sets as arrays and numbers with all their digits', async () => {
    const path = readingsStore(0);
    const wire = { site: { S: 'b' }, ts: { N: '12345678901234567890123' }, tags: { SS: ['x', 'y'] }, ns: { NS: ['1', '2.5'] }, bin: { B: 'AAE=' } };
    await run(['put', 'Readings', JSON.stringify(wire), '--path', path]);
    const r = await run(['scan', 'Readings', '--plain', '--path', path]);
    expect(r.out).toBe('{"site":"b","ts":12345678901234567890123,"tags":["x","y"],"ns":[1,2.5],"bin":"AAE="}\n');
  });

  it('export --plain and import --plain round-trip plain items', async () => {
    const source = readingsStore(5);
    const file = join(tempDir(), 'plain.jsonl');
    const umask = process.umask(0o022);
    try {
      expect((await run(['export', 'Readings', '--plain', '--out', file, '--path', source])).code).toBe(0);
    } finally {
      process.umask(umask);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600); // items: the owner's only, as in the store
    const target = readingsStore(0);
    expect((await run(['import', 'Readings', '--plain', '--in', file, '--path', target])).out).toBe('imported 5 items into Readings\n');
    expect((await run(['export', 'Readings', '--plain', '--path', target])).out).toBe((await run(['export', 'Readings', '--plain', '--path', source])).out);
  });
});

describe('import', () => {
  it('reads standard input with --in - or without --in', async () => {
    const path = readingsStore(0);
    const input = ['{"Item":{"site":{"S":"a"},"ts":{"N":"1"}}}', '', '{"Item":{"site":{"S":"a"},"ts":{"N":"2"}}}', ''].join('\n');
    expect(await run(['import', 'Readings', '--in', '-', '--path', path], { stdin: input })).toEqual({ code: 0, out: 'imported 2 items into Readings\n', err: '' });
    expect((await run(['import', 'Readings', '--plain', '--path', path], { stdin: '{"site":"b","ts":3}\n' })).out).toBe('imported 1 items into Readings\n');
    expect(JSON.parse((await run(['describe', 'Readings', '--path', path])).out).Table.ItemCount).toBe(3);
  });

  it('failing at line 101 says that lines 1-100 were written, and which line failed and why', async () => {
    const path = readingsStore(0);
    const good = (i: number) => JSON.stringify({ Item: { site: { S: 'a' }, ts: { N: String(i) } } });
    const input = [...Array.from({ length: 100 }, (_, i) => good(i + 1)), '{"Item":{"site":{"S":"a"},"ts":{"S":"not a number"}}}', good(102), ''].join('\n');
    const r = await run(['import', 'Readings', '--path', path], { stdin: input });
    expect(r).toEqual({
      code: 1,
      out: '',
      err: 'ValidationException: <stdin>:101: One or more parameter values were invalid: Type mismatch for key ts expected: N actual: S; lines 1-100 were written (100 items), nothing from line 101 on\n',
    });
    const db = open({ path, readOnly: true });
    try {
      expect(db.describeTable({ TableName: 'Readings' }).Table.ItemCount).toBe(100);
    } finally {
      db.close();
    }
  });

  it('a malformed line in the middle of a batch: the lines before it are written', async () => {
    const path = readingsStore(0);
    const r = await run(['import', 'Readings', '--plain', '--path', path], { stdin: '{"site":"a","ts":1}\n{"site":"a","ts":2}\n{"site":\n' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^InvalidFile: <stdin>:3: .*JSON.*; lines 1-2 were written \(2 items\), nothing from line 3 on\n$/);
    expect(JSON.parse((await run(['describe', 'Readings', '--path', path])).out).Table.ItemCount).toBe(2);
  });
});

describe('table commands', () => {
  it('update-table changes billing and throughput; delete-table deletes', async () => {
    const path = readingsStore(3);
    const provisioned = JSON.parse((await run(['update-table', 'Readings', '--billing', 'PROVISIONED', '--read', '10', '--write', '4', '--path', path])).out).TableDescription;
    expect(provisioned.BillingModeSummary.BillingMode).toBe('PROVISIONED');
    expect(provisioned.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 10, WriteCapacityUnits: 4 });
    const back = JSON.parse((await run(['update-table', 'Readings', '--billing', 'PAY_PER_REQUEST', '--path', path])).out).TableDescription;
    expect(back.BillingModeSummary.BillingMode).toBe('PAY_PER_REQUEST');

    const deleted = await run(['delete-table', 'Readings', '--path', path]);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.out).TableDescription.TableName).toBe('Readings');
    expect((await run(['tables', '--path', path])).out).toBe('');
  });

  it('update-table creates a GSI, waits for its backfill with progress, and deletes it', async () => {
    const path = readingsStore(40);
    const r = await run(['update-table', 'Readings', '--create-gsi', 'byT', '--gsi-hash', 't:N', '--gsi-range', 'ts:N', '--projection', 'KEYS_ONLY', '--path', path], { errIsTty: true });
    expect(r.code).toBe(0);
    const index = JSON.parse(r.out).TableDescription.GlobalSecondaryIndexes[0];
    expect(index).toMatchObject({ IndexName: 'byT', IndexStatus: 'ACTIVE', ItemCount: 40, Projection: { ProjectionType: 'KEYS_ONLY' } });
    expect(r.err).toMatch(/\rbackfill byT \[#{24}\] 100% 2\/2 partitions\n$/);
    const q = lines((await run(['query', 'Readings', '--index', 'byT', '--key-condition', 't = :t', '--values', '{":t":20}', '--plain', '--all', '--path', path])).out);
    expect(q).toHaveLength(6);
    expect((await run(['verify', '--path', path])).out).toBe('Readings/byT: expected 40, stored 40, missing 0, extra 0, different 0\n1 indexes checked, 0 differences\n');

    const dropped = await run(['update-table', 'Readings', '--delete-gsi', 'byT', '--path', path]);
    expect(dropped.code).toBe(0);
    expect(JSON.parse((await run(['describe', 'Readings', '--path', path])).out).Table.GlobalSecondaryIndexes ?? []).toEqual([]);
  });

  it('update-table takes an UpdateTable request from a file', async () => {
    const path = readingsStore(1);
    const file = join(tempDir(), 'update.json');
    writeFileSync(file, JSON.stringify({ TableName: 'ignored', BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 3, WriteCapacityUnits: 2 } }));
    const r = await run(['update-table', 'Readings', '--file', file, '--path', path]);
    expect(JSON.parse(r.out).TableDescription.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 3, WriteCapacityUnits: 2 });
  });

  it('ttl enable, describe and disable', async () => {
    const path = readingsStore(0);
    expect(JSON.parse((await run(['ttl', 'describe', 'Readings', '--path', path])).out)).toEqual({ TimeToLiveDescription: { TimeToLiveStatus: 'DISABLED' } });
    expect(JSON.parse((await run(['ttl', 'enable', 'Readings', 'expires', '--path', path])).out)).toEqual({ TimeToLiveSpecification: { Enabled: true, AttributeName: 'expires' } });
    expect(JSON.parse((await run(['ttl', 'describe', 'Readings', '--json', '--path', path])).out)).toEqual({ TimeToLiveDescription: { TimeToLiveStatus: 'ENABLED', AttributeName: 'expires' } });
    expect(JSON.parse((await run(['ttl', 'disable', 'Readings', '--path', path])).out)).toEqual({ TimeToLiveSpecification: { Enabled: false, AttributeName: 'expires' } });
    expect(await run(['ttl', 'disable', 'Readings', '--path', path])).toEqual({ code: 1, out: '', err: 'ValidationException: TimeToLive is already disabled\n' });
  });

  it('verify --json and stats --json are machine-readable', async () => {
    const path = readingsStore(4);
    expect(JSON.parse((await run(['verify', '--json', '--path', path])).out)).toEqual({ Indexes: [], Differences: 0 });
    const rows = JSON.parse((await run(['stats', 'Readings', '--json', '--path', path])).out);
    expect(rows.map((r: { ItemCount: number }) => r.ItemCount).reduce((a: number, b: number) => a + b, 0)).toBe(4);
  });
});
