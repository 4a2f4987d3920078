/**
 * The command line run in-process through main() with captured output: the grammar (--path,
 * the table first, old forms refused), exit codes, one-line errors, each command, export ->
 * import into a fresh store reproducing the table, the demo, and serve stopped by its signal.
 * process.test.ts runs the CLI as a process for what only a process shows.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { run, tempDir } from './run-cli.js';
import type { Item } from '../../src/api/shapes.js';

/** The CLI as its own process, from the sources (test/cli/fixtures/run-cli.ts). */
const CLI_PROCESS = fileURLToPath(new URL('./fixtures/run-cli.ts', import.meta.url));
const COMMANDS = ['serve', 'tables', 'describe', 'create-table', 'update-table', 'delete-table', 'ttl', 'put', 'get', 'query', 'scan', 'delete', 'export', 'import', 'demo', 'verify', 'backup', 'restore', 'stats', 'doctor', 'bridge', 'bridge-status', 'bridge-forget', 'sync', 'sync-status', 'hub'];

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
    ['a missing argument', ['get', 'T']],
    ['an unknown option', ['scan', 'T', '--bogus']],
    ['malformed JSON', ['put', 'T', '{bad']],
    ['a bad --limit', ['scan', 'T', '--limit', 'zero']],
    ['a bad --hash', ['create-table', 'T', '--hash', 'id:X']],
    ['create-table without a key', ['create-table', 'T']],
    ['a bad --mode', ['hub', '--url', 'mqtt://127.0.0.1:1', '--mode', 'sideways']],
    ['a bridge with nothing to listen on', ['bridge']],
    ['update-table --read without --write', ['update-table', 'T', '--read', '5']],
    ['a number plain JSON cannot carry', ['put', 'T', '{"id": 12345678901234567890}', '--plain']],
    ['ttl without its subcommand', ['ttl']],
  ])('exits 2 with one line on %s', async (_, argv) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).not.toBe('');
    if (argv.length > 1) expect(r.err.trimEnd().split('\n')[0]).toMatch(/^error: /);
  });

  it('prints the package version', async () => {
    const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
    expect(await run(['--version'])).toEqual({ code: 0, out: `${version}\n`, err: '' });
  });

  it.each([
    [['describe', './data', 'Readings'], 'edgetable describe Readings --path ./data'],
    [['tables', '/var/lib/edgetable'], 'edgetable tables --path /var/lib/edgetable'],
    [['put', 'db/x', 'T', '{"id":{"S":"a b"}}'], `edgetable put T '{"id":{"S":"a b"}}' --path db/x`],
    [['ttl', 'describe', './data', 'T'], 'edgetable ttl describe T --path ./data'],
    [['bridge', './data', '--udp'], 'edgetable bridge --udp --path ./data'],
    [['create-table', './data', '--name', 'T', '--hash', 'id:S'], 'edgetable create-table --name T --hash id:S --path ./data'],
  ])('refuses the old store-path-first form %j, naming the new one (exit 2)', async (argv, suggestion) => {
    const r = await run(argv);
    expect(r).toEqual({ code: 2, out: '', err: `error: the store is given with --path now (or EDGETABLE_PATH): ${suggestion}\n` });
  });
});

async function articlesStore(): Promise<string> {
  const path = join(tempDir(), 'db');
  const r = await run(['create-table', 'Articles', '--hash', 'ArticleId:N', '--range', 'Part:N', '--partitions', '2', '--path', path]);
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
      const put = await run(['put', 'Articles', JSON.stringify({ ArticleId: { N: '101' }, Part: { N: String(n) }, body: { S: `p${n}` } }), '--path', path]);
      expect(put).toEqual({ code: 0, out: '{}\n', err: '' });
    }
    const got = await run(['get', 'Articles', '{"ArticleId":{"N":"101"},"Part":{"N":"2"}}', '--path', path]);
    expect(JSON.parse(got.out)).toEqual({ Item: { ArticleId: { N: '101' }, Part: { N: '2' }, body: { S: 'p2' } } });
    expect(JSON.parse((await run(['get', 'Articles', '{"ArticleId":{"N":"9"},"Part":{"N":"9"}}', '--path', path])).out)).toEqual({});

    const values = '{":a":{"N":"101"}}';
    const asc = JSON.parse((await run(['query', 'Articles', '--key-condition', 'ArticleId = :a', '--values', values, '--path', path])).out);
    expect(asc.Items.map((i: { Part: { N: string } }) => i.Part.N)).toEqual(['1', '2', '3']);
    const desc = JSON.parse((await run(['query', 'Articles', '--key-condition', '#a = :a', '--names', '{"#a":"ArticleId"}', '--values', values, '--desc', '--limit', '2', '--path', path])).out);
    expect(desc.Items.map((i: { Part: { N: string } }) => i.Part.N)).toEqual(['3', '2']);
    expect(desc.LastEvaluatedKey).toEqual({ ArticleId: { N: '101' }, Part: { N: '2' } });

    const scan = JSON.parse((await run(['scan', 'Articles', '--limit', '1', '--path', path])).out);
    expect(scan.Count).toBe(1);
    expect(scan.LastEvaluatedKey).toBeDefined();

    const deleted = await run(['delete', 'Articles', '{"ArticleId":{"N":"101"},"Part":{"N":"1"}}', '--path', path]);
    expect(JSON.parse(deleted.out)).toEqual({ Attributes: { ArticleId: { N: '101' }, Part: { N: '1' }, body: { S: 'p1' } } });

    const described = JSON.parse((await run(['describe', 'Articles', '--path', path])).out);
    expect(described.Table.ItemCount).toBe(2);
    expect(described.Table.Partitions).toHaveLength(2);
    expect(await run(['tables', '--path', path])).toEqual({ code: 0, out: 'Articles\n', err: '' });
    expect(JSON.parse((await run(['tables', '--json', '--path', path])).out)).toEqual({ TableNames: ['Articles'] });
  });

  it('every read command takes --json and prints JSON', async () => {
    const path = await articlesStore();
    const reads = [
      ['tables'],
      ['describe', 'Articles'],
      ['get', 'Articles', '{"ArticleId":{"N":"1"},"Part":{"N":"1"}}'],
      ['query', 'Articles', '--key-condition', 'ArticleId = :a', '--values', '{":a":{"N":"1"}}'],
      ['scan', 'Articles'],
      ['ttl', 'describe', 'Articles'],
      ['verify'],
      ['stats'],
      ['doctor'],
      ['sync-status'],
      ['bridge-status'],
    ];
    for (const argv of reads) {
      const r = await run([...argv, '--json', '--path', path]);
      expect(r.code, argv.join(' ')).toBe(0);
      expect(() => JSON.parse(r.out), argv.join(' ')).not.toThrow();
    }
  });

  it('creates a provisioned table with its throughput', async () => {
    const path = join(tempDir(), 'db');
    const r = await run(['create-table', 'Meters', '--hash', 'id:S', '--billing', 'PROVISIONED', '--read', '20', '--write', '7', '--path', path]);
    expect(JSON.parse(r.out).TableDescription.ProvisionedThroughput).toMatchObject({ ReadCapacityUnits: 20, WriteCapacityUnits: 7 });
    expect((await run(['create-table', 'Other', '--hash', 'id:S', '--read', '20', '--path', path])).code).toBe(2);
  });

  it('still takes the old --name of create-table', async () => {
    const path = join(tempDir(), 'db');
    const r = await run(['create-table', '--name', 'Students', '--hash', 'studentid:N', '--path', path]);
    expect(JSON.parse(r.out).TableDescription.TableName).toBe('Students');
  });

  it('creates a table from a CreateTable request file', async () => {
    const dir = tempDir();
    const file = join(dir, 'def.json');
    writeFileSync(file, JSON.stringify({ TableName: 'Students', BillingMode: 'PAY_PER_REQUEST', KeySchema: [{ AttributeName: 'studentid', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'studentid', AttributeType: 'N' }] }));
    const r = await run(['create-table', '--file', file, '--path', join(dir, 'db')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).TableDescription.TableName).toBe('Students');
  });

  it('prints a failure as one line <ErrorName>: <message> and exits 1', async () => {
    const path = await articlesStore();
    expect(await run(['get', 'Nowhere', '{"id":{"S":"a"}}', '--path', path])).toEqual({ code: 1, out: '', err: 'ResourceNotFoundException: Requested resource not found: Table: Nowhere not found\n' });
    for (const argv of [['put', 'Nowhere', '{"id":{"S":"a"}}'], ['delete', 'Nowhere', '{"id":{"S":"a"}}'], ['query', 'Nowhere', '--key-condition', 'id = :a', '--values', '{":a":{"S":"a"}}'], ['scan', 'Nowhere'], ['export', 'Nowhere'], ['import', 'Nowhere', '--in', '/dev/null'], ['verify', 'Nowhere'], ['stats', 'Nowhere'], ['describe', 'Nowhere'], ['ttl', 'describe', 'Nowhere'], ['update-table', 'Nowhere', '--billing', 'PAY_PER_REQUEST'], ['delete-table', 'Nowhere']]) {
      expect(await run([...argv, '--path', path]), argv.join(' ')).toEqual({ code: 1, out: '', err: 'ResourceNotFoundException: Requested resource not found: Table: Nowhere not found\n' });
    }
    expect(await run(['get', 'Articles', '{"ArticleId":{"S":"a"},"Part":{"N":"1"}}', '--path', path])).toEqual({
      code: 1,
      out: '',
      err: 'ValidationException: The provided key element does not match the schema\n',
    });
    const again = await run(['create-table', 'Articles', '--hash', 'ArticleId:N', '--path', path]);
    expect(again.err).toBe('ResourceInUseException: Table already exists: Articles\n');
    expect(again.code).toBe(1);
    const noFlags = await run(['create-table', '--path', path]);
    expect(noFlags).toEqual({ code: 2, out: '', err: 'error: give --file, or a table name and --hash (edgetable create-table Readings --hash id:S)\n' });
  });

  it('does not create a store when a reading command is given a wrong path', async () => {
    const missing = join(tempDir(), 'no-such-store');
    const r = await run(['tables', '--path', missing]);
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
    const exported = await run(['export', 'Articles', '--out', file, '--path', source]);
    expect(exported).toEqual({ code: 0, out: `exported 61 items from Articles to ${file}\n`, err: '' });
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(61);
    for (const line of lines) expect(Object.keys(JSON.parse(line))).toEqual(['Item']);

    const target = await articlesStore();
    const imported = await run(['import', 'Articles', '--in', file, '--path', target], { errIsTty: true });
    expect(imported.code).toBe(0);
    expect(imported.out).toBe('imported 61 items into Articles\n');
    expect(imported.err).toMatch(/^\rimport Articles \[#*-*\] \d+% [\s\S]*\rimport Articles \[#{24}\] 100% /);
    expect(imported.err.endsWith('\n')).toBe(true);

    // Same items, same bytes, same order (Scan walks hash order, which the key decides).
    const reexported = await run(['export', 'Articles', '--path', target]);
    expect(reexported.out).toBe(readFileSync(file, 'utf8'));
    const a = JSON.parse((await run(['describe', 'Articles', '--path', source])).out).Table;
    const b = JSON.parse((await run(['describe', 'Articles', '--path', target])).out).Table;
    expect(b.ItemCount).toBe(61);
    expect(b.TableSizeBytes).toBe(a.TableSizeBytes);
  });

  it('names the line of a malformed import file', async () => {
    const target = await articlesStore();
    const file = join(tempDir(), 'bad.jsonl');
    writeFileSync(file, '{"Item":{"ArticleId":{"N":"1"},"Part":{"N":"1"}}}\n\n{"Item": 5}\n');
    const r = await run(['import', 'Articles', '--in', file, '--path', target]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`InvalidFile: ${file}:3: expected {"Item": {...}}; lines 1-2 were written (1 items), nothing from line 3 on\n`);
  });
});

describe('demo', () => {
  it('on a temporary store: the sensor table, latest readings, the GSI, capacity and the stream, then the store is gone', async () => {
    const r = await run(['demo']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe('');
    const lines = r.out.trimEnd().split('\n');
    const path = /^store (\S+) \(temporary: removed at the end; --path DIR keeps one\)$/.exec(lines[0]!)?.[1];
    expect(path).toBeDefined();
    expect(existsSync(path!)).toBe(false);
    expect(lines[1]).toBe('created SensorReadings: partition key sensor, sort key ts (epoch ms); GSI alerts on (alert, ts), sparse; stream of new and old images');
    expect(lines[2]).toMatch(/^wrote 36 readings of 3 sensors, every 5 minutes for the last hour \(BatchWriteItem, 2 batches\): 4\d capacity units \(36 table, \d GSI alerts\)$/);
    expect(lines[3]).toMatch(/^latest 3 of greenhouse-1 \(Query, newest first, Limit 3\): \d\d:\d\dZ [\d.]+ °C \d+%; .*: 0\.5 capacity units$/);
    expect(lines[4]).toMatch(/^over their limit, all sensors \(Query of GSI alerts, newest first\): \d+ of 36 readings: (cold-room|greenhouse-1) /);
    expect(lines[5]).toMatch(/^acknowledged the newest \(UpdateItem REMOVE alert\): it leaves the sparse index, \d+ left: 2 capacity units \(1 table, 1 GSI alerts\)$/);
    expect(lines[6]).toBe('stream of SensorReadings: 37 records from this run (36 INSERT, 1 MODIFY), in commit order per shard');
    expect(lines[7]).toMatch(/^ {2}last: MODIFY \S+ at \d\d:\d\dZ, old image: alert "over-limit"; new image: acknowledged, no alert$/);
    const seconds = Number(/^done in ([\d.]+) s; /.exec(lines[8]!)?.[1]);
    expect(seconds).toBeLessThan(5);
    expect(lines).toHaveLength(9);
  });

  it('on a --path store: keeps the table; a second run writes the same readings, which change nothing the stream records', async () => {
    const path = join(tempDir(), 'data');
    expect((await run(['demo', '--path', path])).code).toBe(0);
    const second = await run(['demo', '--path', path]);
    expect(second.code, second.err).toBe(0);
    expect(second.out.split('\n')[0]).toBe(`store ${path}`);
    expect(second.out).toContain('using SensorReadings: ');
    // The 36 puts write what is there: only the acknowledged reading changes back (and the new
    // acknowledgement), unless the run crossed a 5-minute boundary: one newer reading per sensor.
    const records = Number(/stream of SensorReadings: (\d+) records from this run \([^)]*MODIFY[^)]*\)/.exec(second.out)?.[1]);
    expect(records).toBeGreaterThanOrEqual(2);
    expect(records).toBeLessThanOrEqual(2 + 3);
    const db = open({ path });
    try {
      expect(db.describeTable({ TableName: 'SensorReadings' }).Table.ItemCount).toBeGreaterThanOrEqual(36);
    } finally {
      db.close();
    }
  });

  it('leaves alone, and refuses, a table of that name that is not the demo\'s', async () => {
    const path = join(tempDir(), 'data');
    const db = open({ path });
    db.createTable({ TableName: 'SensorReadings', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
    db.close();
    const r = await run(['demo', '--path', path]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^DemoError: this store already has a table SensorReadings that is not the demo's \(keys .*\); run the demo on another --path, or without --path\n$/);
  });
});

/** `edgetable serve` on a fresh folder with `flags`, a free port; `call` posts one DynamoDB request. */
async function startServe(flags: string[] = []) {
  const path = join(tempDir(), 'data');
  const stop = new AbortController();
  let announced: (port: number) => void = () => undefined;
  const portKnown = new Promise<number>((resolve) => {
    announced = resolve;
  });
  let log = '';
  const running = run(['serve', '--path', path, '--port', '0', ...flags], {
    signal: stop.signal,
    onErr: (text) => void (log += text),
    onOut: (text) => {
      const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
      if (m) announced(Number(m[1]));
    },
  });
  const port = await portKnown;
  const headers = (op: string) => ({ 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${op}`, 'x-amz-date': '20260101T000000Z', authorization: 'AWS4-HMAC-SHA256 Credential=edge/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00' });
  const call = (op: string, body: unknown) => fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: headers(op), body: JSON.stringify(body) });
  // serve's log so far: a failed assertion shows it (an internal error is logged with its cause).
  return { path, port, call, running, stop: () => stop.abort(), log: () => log };
}

describe('serve', () => {
  it('serves the DynamoDB API until stopped, then closes and exits 0', async () => {
    const { port, call, running, stop } = await startServe();
    const health = await fetch(`http://127.0.0.1:${port}/`);
    expect(await health.text()).toBe('healthy: dynamodb.us-east-1.amazonaws.com ');
    const list = await call('ListTables', {});
    expect(await list.json()).toEqual({ TableNames: [] });
    stop();
    const r = await running;
    expect(r.code).toBe(0);
    // One JSON log line: nothing per request at the default level.
    expect(r.err.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ level: 'info', component: 'serve', msg: 'stopped: closing' })]);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });

  it("--durability log serves through the redo log: while it runs the folder holds the log and is claimed; stopped, both are gone and the writes are in", async () => {
    const { path, call, running, stop } = await startServe(['--durability', 'log']);
    const created = await call('CreateTable', { TableName: 'Logged', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
    expect(created.status, await created.text()).toBe(200);
    for (let i = 0; i < 20; i++) expect((await call('PutItem', { TableName: 'Logged', Item: { pk: { S: `k${i}` } } })).status).toBe(200);
    expect(readdirSync(path).filter((f) => f.startsWith('redo')).sort()).toEqual(expect.arrayContaining(['redo-a.log', 'redo.owner']));
    stop();
    expect((await running).code).toBe(0);
    expect(readdirSync(path).filter((f) => f.startsWith('redo'))).toEqual([]);
    const db = open({ path, readOnly: true });
    try {
      expect(db.describeTable({ TableName: 'Logged' }).Table.ItemCount).toBe(20);
    } finally {
      db.close();
    }
  });

  it('--durability log: an `edgetable put` process on the same folder is handed the folder, writes, and serve logs again once it exited', async () => {
    const { path, call, running, stop, log } = await startServe(['--durability', 'log']);
    const created = await call('CreateTable', { TableName: 'Logged', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
    expect(created.status, await created.text()).toBe(200);
    expect((await call('PutItem', { TableName: 'Logged', Item: { pk: { S: 'served' } } })).status).toBe(200);
    const put = await new Promise<{ code: number | null; err: string }>((resolve, reject) => {
      // Asynchronously: serve's event loop (this process) must run to hand the folder over.
      const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), CLI_PROCESS, 'put', '--path', path, 'Logged', '{"pk":{"S":"from-cli"}}'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (t: string) => void (err += t));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, err }));
    });
    expect(put.code, put.err).toBe(0);
    const got = await call('GetItem', { TableName: 'Logged', Key: { pk: { S: 'from-cli' } } });
    expect(await got.json(), log()).toEqual({ Item: { pk: { S: 'from-cli' } } });
    // The put process is gone: serve takes the log back up (its watcher, within a poll) and serves on.
    const deadline = Date.now() + 10_000;
    while (!readdirSync(path).includes('redo.owner') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(readdirSync(path).filter((f) => f.startsWith('redo.'))).toEqual(['redo.owner']);
    const after = await call('PutItem', { TableName: 'Logged', Item: { pk: { S: 'after' } } });
    expect(after.status, `${await after.text()}\n${log()}`).toBe(200);
    stop();
    expect((await running).code).toBe(0);
    const db = open({ path, readOnly: true });
    try {
      expect(db.describeTable({ TableName: 'Logged' }).Table.ItemCount).toBe(3);
    } finally {
      db.close();
    }
  }, 60_000);

  it('--no-throttling serves a 1 WCU table far past its burst, as DynamoDB Local', async () => {
    const { call, running, stop } = await startServe(['--no-throttling']);
    const created = await call('CreateTable', {
      TableName: 'Small',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 },
    });
    expect(created.status).toBe(200);
    // 8 puts of 300 KB: 2,344 write units against a 300-unit burst.
    for (let i = 0; i < 8; i++) {
      const put = await call('PutItem', { TableName: 'Small', Item: { pk: { S: `k${i}` }, data: { S: 'x'.repeat(300_000) } } });
      expect(put.status, await put.text()).toBe(200);
    }
    stop();
    expect((await running).code).toBe(0);
  });
});
