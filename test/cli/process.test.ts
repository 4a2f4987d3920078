/**
 * The CLI as a process, as users run it: exit codes and the one stderr line, standard input and
 * EDGETABLE_PATH. Few cases: each start costs about a second under tsx.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { tempDir } from './run-cli.js';

const TSX = import.meta.resolve('tsx');
const CLI = fileURLToPath(new URL('./fixtures/run-cli.ts', import.meta.url));

function edgetable(args: string[], options: { env?: Record<string, string>; input?: string; cwd?: string } = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], { cwd: options.cwd ?? tempDir(), env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => void (out += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => void (err += t));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(options.input ?? '');
  });
}

describe('edgetable as a process', () => {
  it('exits 2 on a usage error and 1 on a failure, each with one line on stderr', async () => {
    const [usage, failure] = await Promise.all([edgetable(['scan', 'Readings', '--bogus']), edgetable(['tables', '--path', join(tempDir(), 'none')])]);
    expect(usage.code).toBe(2);
    expect(usage.err).toBe("error: unknown option '--bogus'\n");
    expect(failure.code).toBe(1);
    expect(failure.err).toMatch(/^StorageError: [^\n]+\n$/);
    expect(failure.out).toBe('');
  }, 60_000);

  it('imports standard input into the store named by EDGETABLE_PATH (default ./data in the working folder)', async () => {
    const cwd = tempDir();
    const db = open({ path: join(cwd, 'data') });
    db.createTable({ TableName: 'Readings', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' });
    db.close();
    const input = Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: `r${i}`, t: i / 2 })).join('\n');
    const imported = await edgetable(['import', 'Readings', '--plain'], { cwd, input });
    expect(imported).toEqual({ code: 0, out: 'imported 60 items into Readings\n', err: '' });
    const listed = await edgetable(['scan', 'Readings', '--all', '--plain'], { cwd: tempDir(), env: { EDGETABLE_PATH: join(cwd, 'data') } });
    expect(listed.code).toBe(0);
    expect(listed.out.trimEnd().split('\n').map((l) => JSON.parse(l)).sort((a, b) => a.t - b.t)).toEqual(Array.from({ length: 60 }, (_, i) => ({ id: `r${i}`, t: i / 2 })));
  }, 60_000);
});
