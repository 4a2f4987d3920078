/**
 * What a user who got a command slightly wrong is told: an --in file that is not there (a usage
 * error before the store opens, not an unhandled stream error), an item or a line in the other
 * JSON form than the command was told (the refusal names the other form), and a sync of a table
 * the store does not have (named, with the tables it has).
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { run, tempDir } from './run-cli.js';

const TSX = import.meta.resolve('tsx');
const CLI = fileURLToPath(new URL('./fixtures/run-cli.ts', import.meta.url));

async function store(): Promise<string> {
  const path = join(tempDir(), 'db');
  const created = await run(['create-table', 'Readings', '--hash', 'id:S', '--path', path]);
  expect(created.code, created.err).toBe(0);
  return path;
}

function lines(...text: string[]): string {
  const file = join(tempDir(), 'in.jsonl');
  writeFileSync(file, `${text.join('\n')}\n`);
  return file;
}

describe('import --in a file that cannot be read', () => {
  it('is a usage error naming the file, exit code 2, as a process: no stack trace, no store created', async () => {
    const cwd = tempDir();
    const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', TSX, CLI, 'import', 'Readings', '--in', 'missing.jsonl', '--path', 'db'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (t: string) => void (out += t));
      child.stderr.setEncoding('utf8').on('data', (t: string) => void (err += t));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out, err }));
    });
    expect(r).toEqual({ code: 2, out: '', err: 'error: --in missing.jsonl: no such file\n' });
    expect(existsSync(join(cwd, 'db'))).toBe(false);
  }, 60_000);

  it('refuses a folder', async () => {
    const dir = tempDir();
    expect(await run(['import', 'Readings', '--in', dir, '--path', await store()])).toEqual({ code: 2, out: '', err: `error: --in ${dir} is a folder, not a file of items\n` });
  });
});

describe('put in the other JSON form', () => {
  it('plain JSON without --plain: the DynamoDB error, then the hint naming --plain', async () => {
    const r = await run(['put', 'Readings', '{"id":"a"}', '--path', await store()]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`SerializationException: Unexpected value type in payload (the item looks like plain JSON ('{"id":"a"}'): add --plain, or write it in DynamoDB JSON ('{"id":{"S":"a"}}'))\n`);
  });

  it('DynamoDB JSON with --plain: the hint says to leave --plain out', async () => {
    const r = await run(['put', 'Readings', '{"id":{"S":"a"}}', '--plain', '--path', await store()]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^ValidationException: .*Type mismatch for key id expected: S actual: M \(the item looks like DynamoDB JSON \('\{"id":\{"S":"a"\}\}'\): leave out --plain\)\n$/);
  });

  it('an item in the right form that the table refuses gets no hint', async () => {
    const r = await run(['put', 'Readings', '{"id":{"N":"1"}}', '--path', await store()]);
    expect(r.code).toBe(1);
    expect(r.err).not.toContain('--plain');
  });
});

describe('import lines in the other JSON form', () => {
  it('plain lines without --plain: the line, the hint, how far the import got', async () => {
    const path = await store();
    const file = lines('{"Item":{"id":{"S":"a"}}}', '{"id":"b"}');
    const r = await run(['import', 'Readings', '--in', file, '--path', path]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`InvalidFile: ${file}:2: expected {"Item": {...}} (the line looks like a plain JSON item ('{"id":"a"}'): import with --plain); lines 1-1 were written (1 items), nothing from line 2 on\n`);
  });

  it("export's lines with --plain: the hint says to import without --plain", async () => {
    const path = await store();
    const file = lines('{"Item":{"id":{"S":"a"}}}');
    const r = await run(['import', 'Readings', '--in', file, '--plain', '--path', path]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`ValidationException: ${file}:1: One or more parameter values were invalid: Missing the key id in the item (the line looks like export's DynamoDB JSON ({"Item": {...}}): import without --plain); nothing was written\n`);
  });
});

describe('sync --table of a table the store does not have', () => {
  it('names the table, the store and its tables; usage error, exit code 2, before connecting', async () => {
    const path = await store();
    const r = await run(['sync', '--path', path, '--url', 'mqtt://127.0.0.1:1', '--device', 'pi-1', '--table', 'Nope', '--table', 'Readings']);
    expect(r).toEqual({ code: 2, out: '', err: `error: --table Nope: no such table in ${path} (its tables: Readings); create it first (edgetable create-table), or receive it from the hub with Nope:down\n` });
  });

  it('takes a table to receive (down or both) that is not there yet: the hub creates it', async () => {
    const path = await store();
    const stop = new AbortController();
    let out = '';
    const running = run(['sync', '--path', path, '--url', 'mqtt://127.0.0.1:1', '--device', 'pi-1', '--table', 'Orders:down'], { signal: stop.signal, onOut: (t) => void (out += t) });
    const deadline = Date.now() + 20_000;
    while (!out.includes('edgetable syncing') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    stop.abort();
    const r = await running;
    expect(r.code, r.err).toBe(0);
    expect(out).toContain('edgetable syncing Orders');
  }, 30_000);
});
