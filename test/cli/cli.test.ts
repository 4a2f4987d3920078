/**
 * The command line run in-process through main() with captured output: exit codes, one-line
 * errors, each command, export -> import into a fresh store reproducing the table, the demo,
 * and serve stopped by its signal.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/cli-io.js';
import type { Item } from '../../src/api/shapes.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-'));
  dirs.push(dir);
  return dir;
}

type Run = { code: number; out: string; err: string };

async function run(argv: string[], options: { errIsTty?: boolean; signal?: AbortSignal; onOut?: (text: string) => void } = {}): Promise<Run> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (text) => {
      out += text;
      options.onOut?.(text);
    },
    err: (text) => {
      err += text;
    },
    errIsTty: options.errIsTty ?? false,
    ...(options.signal && { signal: options.signal }),
  };
  const code = await main(argv, io);
  return { code, out, err };
}

const COMMANDS = ['serve', 'tables', 'describe', 'create-table', 'put', 'get', 'query', 'scan', 'delete', 'export', 'import', 'demo'];

describe('usage', () => {
  it.each(COMMANDS)('%s --help prints its usage and exits 0', async (command) => {
    const r = await run([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage: edgetable ${command}`);
    expect(r.err).toBe('');
  });

  it('lists every command in the top-level help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const command of COMMANDS) expect(r.out).toContain(`  ${command} `);
  });

  it.each([
    ['no arguments', []],
    ['an unknown command', ['frobnicate']],
    ['a missing argument', ['get', 'somewhere', 'T']],
    ['an unknown option', ['scan', 'somewhere', 'T', '--bogus']],
    ['malformed JSON', ['put', 'somewhere', 'T', '{bad']],
    ['a bad --limit', ['scan', 'somewhere', 'T', '--limit', 'zero']],
    ['a bad --hash', ['create-table', 'somewhere', '--name', 'T', '--hash', 'id:X']],
  ])('exits 2 on %s', async (_, argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).not.toBe('');
  });
});

async function articlesStore(): Promise<string> {
  const path = join(tempDir(), 'db');
  const r = await run(['create-table', path, '--name', 'Articles', '--hash', 'ArticleId:N', '--range', 'Part:N', '--partitions', '2']);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.out).TableDescription.KeySchema).toEqual([
    { AttributeName: 'ArticleId', KeyType: 'HASH' },
    { AttributeName: 'Part', KeyType: 'RANGE' },
  ]);
  return path;
}

describe('item commands', () => {
  it('put, get, query, scan, delete, describe and tables', async () => {
    const path = await articlesStore();
    for (const n of [3, 1, 2]) {
      const put = await run(['put', path, 'Articles', JSON.stringify({ ArticleId: { N: '101' }, Part: { N: String(n) }, body: { S: `p${n}` } })]);
      expect(put).toEqual({ code: 0, out: '{}\n', err: '' });
    }
    const got = await run(['get', path, 'Articles', '{"ArticleId":{"N":"101"},"Part":{"N":"2"}}']);
    expect(JSON.parse(got.out)).toEqual({ Item: { ArticleId: { N: '101' }, Part: { N: '2' }, body: { S: 'p2' } } });
    expect(JSON.parse((await run(['get', path, 'Articles', '{"ArticleId":{"N":"9"},"Part":{"N":"9"}}'])).out)).toEqual({});

    const values = '{":a":{"N":"101"}}';
    const asc = JSON.parse((await run(['query', path, 'Articles', '--key-condition', 'ArticleId = :a', '--values', values])).out);
    expect(asc.Items.map((i: { Part: { N: string } }) => i.Part.N)).toEqual(['1', '2', '3']);
    const desc = JSON.parse((await run(['query', path, 'Articles', '--key-condition', '#a = :a', '--names', '{"#a":"ArticleId"}', '--values', values, '--desc', '--limit', '2'])).out);
    expect(desc.Items.map((i: { Part: { N: string } }) => i.Part.N)).toEqual(['3', '2']);
    expect(desc.LastEvaluatedKey).toEqual({ ArticleId: { N: '101' }, Part: { N: '2' } });

    const scan = JSON.parse((await run(['scan', path, 'Articles', '--limit', '1'])).out);
    expect(scan.Count).toBe(1);
    expect(scan.LastEvaluatedKey).toBeDefined();

    const deleted = await run(['delete', path, 'Articles', '{"ArticleId":{"N":"101"},"Part":{"N":"1"}}']);
    expect(JSON.parse(deleted.out)).toEqual({ Attributes: { ArticleId: { N: '101' }, Part: { N: '1' }, body: { S: 'p1' } } });

    const described = JSON.parse((await run(['describe', path, 'Articles'])).out);
    expect(described.Table.ItemCount).toBe(2);
    expect(described.Table.Partitions).toHaveLength(2);
    expect(await run(['tables', path])).toEqual({ code: 0, out: 'Articles\n', err: '' });
  });

  it('creates a table from a CreateTable request file', async () => {
    const dir = tempDir();
    const file = join(dir, 'def.json');
    writeFileSync(file, JSON.stringify({ TableName: 'Students', BillingMode: 'PAY_PER_REQUEST', KeySchema: [{ AttributeName: 'studentid', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'studentid', AttributeType: 'N' }] }));
    const r = await run(['create-table', join(dir, 'db'), '--file', file]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).TableDescription.TableName).toBe('Students');
  });

  it('prints a failure as one line <ErrorName>: <message> and exits 1', async () => {
    const path = await articlesStore();
    expect(await run(['get', path, 'Nowhere', '{"id":{"S":"a"}}'])).toEqual({ code: 1, out: '', err: 'ResourceNotFoundException: Requested resource not found\n' });
    expect(await run(['get', path, 'Articles', '{"ArticleId":{"S":"a"},"Part":{"N":"1"}}'])).toEqual({
      code: 1,
      out: '',
      err: 'ValidationException: The provided key element does not match the schema\n',
    });
    const again = await run(['create-table', path, '--name', 'Articles', '--hash', 'ArticleId:N']);
    expect(again.err).toBe('ResourceInUseException: Table already exists: Articles\n');
    expect(again.code).toBe(1);
    const noFlags = await run(['create-table', path]);
    expect(noFlags).toEqual({ code: 1, out: '', err: 'UsageError: give --file, or --name and --hash\n' });
  });

  it('does not create a store when a reading command is given a wrong path', async () => {
    const missing = join(tempDir(), 'no-such-store');
    const r = await run(['tables', missing]);
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toHaveLength(2);
    expect(r.err).toMatch(/^StorageError: /);
  });
});

describe('export and import', () => {
  const shapes = (i: number): Item => ({
    ArticleId: { N: String(100 + (i % 7)) },
    Part: { N: String(i) },
    title: { S: `title ${i} ✓` },
    blob: { B: Buffer.from([i, 0, 255 - i]).toString('base64') },
    ...(i % 2 === 0 && { tags: { SS: [`t${i}`, 'even'] }, ratios: { NS: ['1.5', String(-i)] } }),
    ...(i % 3 === 0 && { meta: { M: { ok: { BOOL: true }, none: { NULL: true }, list: { L: [{ N: '1e3' }, { S: '' }] } } } }),
  });

  it('reproduces a table exactly in a fresh store (61 items: three batches of 25)', async () => {
    const source = await articlesStore();
    const db = open({ path: source });
    for (let i = 0; i < 61; i++) db.putItem({ TableName: 'Articles', Item: shapes(i) });
    db.close();

    const file = join(tempDir(), 'articles.jsonl');
    const exported = await run(['export', source, 'Articles', '--out', file]);
    expect(exported).toEqual({ code: 0, out: `exported 61 items from Articles to ${file}\n`, err: '' });
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(61);
    for (const line of lines) expect(Object.keys(JSON.parse(line))).toEqual(['Item']);

    const target = await articlesStore();
    const imported = await run(['import', target, 'Articles', '--in', file], { errIsTty: true });
    expect(imported.code).toBe(0);
    expect(imported.out).toBe('imported 61 items into Articles\n');
    expect(imported.err).toMatch(/importing: 25 items[\s\S]*\rimporting: 61 items\n$/);

    // Same items, same bytes, same order (Scan walks hash order, which the key decides).
    const reexported = await run(['export', target, 'Articles']);
    expect(reexported.out).toBe(readFileSync(file, 'utf8'));
    const a = JSON.parse((await run(['describe', source, 'Articles'])).out).Table;
    const b = JSON.parse((await run(['describe', target, 'Articles'])).out).Table;
    expect(b.ItemCount).toBe(61);
    expect(b.TableSizeBytes).toBe(a.TableSizeBytes);
  });

  it('names the line of a malformed import file', async () => {
    const target = await articlesStore();
    const file = join(tempDir(), 'bad.jsonl');
    writeFileSync(file, '{"Item":{"ArticleId":{"N":"1"},"Part":{"N":"1"}}}\n\n{"Item": 5}\n');
    const r = await run(['import', target, 'Articles', '--in', file]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`InvalidFile: ${file}:3: expected {"Item": {...}}\n`);
  });
});

describe('demo', () => {
  it("creates the seeds' tables, writes items and reports reading them back", async () => {
    const path = join(tempDir(), 'data');
    const first = await run(['demo', '--path', path]);
    expect(first.code).toBe(0);
    expect(first.err).toBe('');
    const lines = first.out.trimEnd().split('\n');
    expect(lines[0]).toBe(`store ${path}: tables Students, Articles, Employees (created Students, Articles, Employees)`);
    expect(first.out).toContain('GetItem Students studentid=2 -> {studentid: 2, name: "Grace", grade: 11, clubs: <<"chess", "robotics">>}');
    expect(first.out).toContain('Query Articles ArticleId=101 -> 3 parts in Part order: 1:introduction, 2:method, 3:conclusion');
    expect(first.out).toContain('Scan counts: Students 3, Articles 3, Employees 3');
    expect(lines.length).toBeLessThanOrEqual(8);

    const second = await run(['demo', '--path', path]);
    expect(second.out.split('\n')[0]).toBe(`store ${path}: tables Students, Articles, Employees (all existed)`);
    expect(second.out).toContain('Scan counts: Students 3, Articles 3, Employees 3');

    const db = open({ path });
    try {
      expect(db.listTables().TableNames).toEqual(['Articles', 'Employees', 'Students']);
      const articles = db.describeTable({ TableName: 'Articles' }).Table;
      expect(articles.KeySchema).toEqual([
        { AttributeName: 'ArticleId', KeyType: 'HASH' },
        { AttributeName: 'Part', KeyType: 'RANGE' },
      ]);
      expect(articles.ItemCount).toBe(3);
    } finally {
      db.close();
    }
  });
});

describe('serve', () => {
  it('serves the DynamoDB API until stopped, then closes and exits 0', async () => {
    const path = join(tempDir(), 'data');
    const stop = new AbortController();
    let announced: (port: number) => void = () => undefined;
    const portKnown = new Promise<number>((resolve) => {
      announced = resolve;
    });
    const running = run(['serve', '--path', path, '--port', '0'], {
      signal: stop.signal,
      onOut: (text) => {
        const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
        if (m) announced(Number(m[1]));
      },
    });
    const port = await portKnown;
    const health = await fetch(`http://127.0.0.1:${port}/`);
    expect(await health.text()).toBe('healthy: edgetable');
    const list = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
      body: '{}',
    });
    expect(await list.json()).toEqual({ TableNames: [] });
    stop.abort();
    const r = await running;
    expect(r.code).toBe(0);
    expect(r.err).toBe('stopped: closing\n');
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});
