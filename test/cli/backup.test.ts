/**
 * `edgetable backup` of a store that another process keeps writing to: the copy opens, verifies,
 * holds every write acknowledged before the backup started, and restores; restore refuses an
 * existing store without --force.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { run, tempDir } from './run-cli.js';
import type { KeyOutput } from '../../src/api/shapes.js';

const TSX = import.meta.resolve('tsx');
const WRITER = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url));
const PREFILLED = 4000;

function logStore(): string {
  const path = join(tempDir(), 'db');
  const db = open({ path, durability: 'relaxed', ttlSweepIntervalMs: 0 });
  db.createTable({ TableName: 'Log', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }], BillingMode: 'PAY_PER_REQUEST', PartitionCount: 4 });
  const payload = { S: 'p'.repeat(400) };
  for (let i = 0; i < PREFILLED; i += 25) {
    db.batchWriteItem({ RequestItems: { Log: Array.from({ length: 25 }, (_, j) => ({ PutRequest: { Item: { id: { N: String(i + j) }, payload } } })) } });
  }
  db.close();
  return path;
}

/** Ids present in table Log of the store at `path`. */
function storedIds(path: string): Set<number> {
  const db = open({ path, readOnly: true });
  try {
    const ids = new Set<number>();
    let start: KeyOutput | undefined;
    do {
      const page = db.scan({ TableName: 'Log', ProjectionExpression: 'id', ...(start && { ExclusiveStartKey: start }) });
      for (const item of page.Items ?? []) ids.add(Number((item.id as { N: string }).N));
      start = page.LastEvaluatedKey;
    } while (start);
    return ids;
  } finally {
    db.close();
  }
}

describe('edgetable backup and restore', () => {
  it('copies a store while another process writes: every write acknowledged before it is in the copy, which verifies', async () => {
    const path = logStore();
    const writer = spawn(process.execPath, ['--import', TSX, WRITER, path, String(PREFILLED)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acked = 0;
    const ackedAt = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (acked >= n ? resolve() : setTimeout(check, 20));
        check();
      });
    writer.stdout.setEncoding('utf8').on('data', (text: string) => {
      for (const m of text.matchAll(/acked (\d+)/g)) acked = Math.max(acked, Number(m[1]));
    });
    const exited = new Promise<number | null>((resolve) => writer.on('exit', resolve));
    try {
      await ackedAt(PREFILLED + 250);
      const ackedBefore = acked;
      const out = join(tempDir(), 'backup');
      const backup = await run(['backup', '--path', path, '--out', out]);
      expect(backup.err).toBe('');
      expect(backup.code).toBe(0);
      await ackedAt(ackedBefore + 250); // the writer went on
      expect(await run(['restore', '--from', out, '--path', path, '--force'])).toEqual({ code: 1, out: '', err: `RestoreError: ${path} is open in another process: stop it before restoring\n` });
      writer.kill('SIGTERM');
      expect(await exited).toBe(0);

      expect(readdirSync(out).sort()).toEqual(['backup.json', 'data.mdb']);
      const manifest = JSON.parse(readFileSync(join(out, 'backup.json'), 'utf8'));
      expect(backup.out).toBe(`backed up ${path} to ${out}: ${manifest.bytes} bytes, 1 tables (Log ${manifest.tables.Log}), checked\n`);
      const ids = storedIds(out);
      expect(ids.size).toBe(manifest.tables.Log);
      for (let id = 0; id < ackedBefore; id++) if (!ids.has(id)) expect.fail(`acknowledged id ${id} missing from the backup`);
      expect(Math.max(...ids)).toBeLessThan(acked);
      expect(await run(['verify', '--path', out])).toEqual({ code: 0, out: '0 indexes checked, 0 differences\n', err: '' });

      const restored = join(tempDir(), 'restored');
      const r = await run(['restore', '--from', out, '--path', restored]);
      expect(r).toEqual({ code: 0, out: `restored ${out} to ${restored}: 1 tables (Log ${manifest.tables.Log}), checked\n`, err: '' });
      expect(storedIds(restored)).toEqual(ids);
    } finally {
      writer.kill('SIGKILL');
    }
  }, 60_000);

  it('restore refuses an existing store unless --force, and a backup folder must be new or empty', async () => {
    const path = logStore();
    const out = join(tempDir(), 'backup');
    expect((await run(['backup', '--path', path, '--out', out, '--json'])).code).toBe(0);
    expect(await run(['backup', '--path', path, '--out', out])).toEqual({ code: 1, out: '', err: `BackupError: ${out} is not empty: back up into a new or empty folder\n` });

    const other = logStore();
    const db = open({ path: other });
    db.deleteTable({ TableName: 'Log' });
    db.close();
    expect(await run(['restore', '--from', out, '--path', other])).toEqual({ code: 1, out: '', err: `RestoreError: ${other} already holds a store: restore into an empty folder, or add --force to replace it\n` });
    const forced = await run(['restore', '--from', out, '--path', other, '--force', '--json']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.out).tables).toEqual({ Log: PREFILLED });
    expect(storedIds(other).size).toBe(PREFILLED);
    expect(existsSync(join(other, 'data.mdb.restoring'))).toBe(false);
    expect(await run(['restore', '--from', path + '-nothing', '--path', join(tempDir(), 'x')])).toMatchObject({ code: 1, err: expect.stringMatching(/^RestoreError: .* holds no backup \(no data\.mdb\)\n$/) });
  });

  it("restore --force over a store a 'log' process left without closing discards its redo log, which would otherwise be replayed over the restored store", async () => {
    const path = logStore();
    const out = join(tempDir(), 'backup');
    expect((await run(['backup', '--path', path, '--out', out])).code).toBe(0);
    // A 'log' store as a crash leaves it: its files copied while it is open (the page cache's view), redo log and claim included.
    const live = join(tempDir(), 'live');
    const db = open({ path: live, durability: 'log' });
    db.createTable({ TableName: 'Log', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }], BillingMode: 'PAY_PER_REQUEST' });
    for (let i = 0; i < 300; i++) db.putItem({ TableName: 'Log', Item: { id: { N: String(100_000 + i) } } });
    const crashed = join(tempDir(), 'crashed');
    mkdirSync(crashed);
    for (const name of readdirSync(live)) if (name !== 'lock.mdb') copyFileSync(join(live, name), join(crashed, name));
    db.close();
    expect(readdirSync(crashed).filter((n) => n.startsWith('redo-')).length).toBeGreaterThan(0);
    expect((await run(['restore', '--from', out, '--path', crashed, '--force'])).code).toBe(0);
    expect(readdirSync(crashed).filter((n) => n.startsWith('redo'))).toEqual([]);
    const restored = open({ path: crashed }); // writable: a log left behind would be recovered here
    try {
      expect(restored.describeTable({ TableName: 'Log' }).Table.ItemCount).toBe(PREFILLED);
    } finally {
      restored.close();
    }
    expect([...storedIds(crashed)].some((id) => id >= 100_000)).toBe(false);
  });

  it('writes backups and restored stores readable by the owner only (folder 0700, files 0600), under umask 022', async () => {
    const previous = process.umask(0o022);
    try {
      const mode = (path: string): string => `0${(statSync(path).mode & 0o777).toString(8)}`;
      const path = join(tempDir(), 'db');
      const db = open({ path });
      db.createTable({ TableName: 'Log', KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }], BillingMode: 'PAY_PER_REQUEST' });
      db.putItem({ TableName: 'Log', Item: { id: { N: '1' } } });
      db.close();
      const out = join(tempDir(), 'backup');
      expect((await run(['backup', '--path', path, '--out', out])).code).toBe(0);
      expect(Object.fromEntries(['.', ...readdirSync(out)].map((name) => [name, mode(join(out, name))]))).toEqual({ '.': '0700', 'data.mdb': '0600', 'backup.json': '0600' });
      const restored = join(tempDir(), 'restored');
      expect((await run(['restore', '--from', out, '--path', restored])).code).toBe(0);
      expect(Object.fromEntries(['.', ...readdirSync(restored)].map((name) => [name, mode(join(restored, name))]))).toEqual({ '.': '0700', 'data.mdb': '0600' }); // checked in a staging folder: no lock file here
    } finally {
      process.umask(previous);
    }
  });
});
