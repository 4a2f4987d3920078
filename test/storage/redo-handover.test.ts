/**
 * Several writing processes on a folder written with durability 'log' (redo-handover.ts): the
 * logging process hands the folder over to a writer that registers, everybody commits durably
 * through LMDB meanwhile, and a 'log' process takes the log back up once it is the only writer.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { OWNER_FILE } from '../../src/storage/redo-handover.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { Store } from '../../src/storage/store.js';
import type { Durability } from '../../src/storage/store-options.js';

const holderScript = fileURLToPath(new URL('./fixtures/log-holder.ts', import.meta.url));
const dirs: string[] = [];
const stores: Store[] = [];
const holders: Holder[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) store.close();
  for (const holder of holders.splice(0)) await holder.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-handover-'));
  dirs.push(dir);
  return join(dir, 'db');
}
function open(path: string, durability: Durability, extra: { handoverTimeoutMs?: number } = {}): Store {
  const store = Store.open({ path, durability, checkpoint: { commits: 4, bytes: 1 << 30, pages: 1 << 30 }, ...extra });
  stores.push(store);
  return store;
}
function close(store: Store): void {
  store.close();
  stores.splice(stores.indexOf(store), 1);
}
const logFiles = (path: string): string[] => readdirSync(path).filter((name) => /^redo-[ab]\.log$/.test(name));
const registrations = (path: string): string[] => readdirSync(path).filter((name) => name.startsWith('redo.writer-'));
const key = (i: number): Buffer => Buffer.from(`key-${String(i).padStart(6, '0')}`);
function keys(store: Store): number[] {
  const items = store.database('items');
  return store.read((txn) => [...txn.cursor(items)].map((e) => Number(Buffer.from(e.key).toString().slice(4))));
}

/** The fixture process, one command line at a time. */
class Holder {
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;
  readonly exited: Promise<number | null>;

  private constructor(readonly proc: ChildProcessWithoutNullStreams) {
    let buffered = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        this.lines.push(buffered.slice(0, i));
        buffered = buffered.slice(i + 1);
      }
      this.deliver();
    });
    this.exited = new Promise((resolve) => proc.once('exit', resolve));
  }

  static async start(path: string, durability: Durability): Promise<{ holder: Holder; ready: string }> {
    const holder = new Holder(spawn(process.execPath, ['--import', 'tsx', holderScript, path, durability], { stdio: ['pipe', 'pipe', 'pipe'] }));
    holders.push(holder);
    return { holder, ready: await holder.next() };
  }

  /** Sends a command and returns its answer. */
  ask(command: string): Promise<string> {
    this.proc.stdin.write(`${command}\n`);
    return this.next();
  }

  /** Asks `logging` until it answers `want` (the fixture notices other writers on its event loop). */
  async awaitLogging(want: boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.ask('logging')) !== `logging=${want}`) {
      if (Date.now() > deadline) throw new Error(`the holder did not reach logging=${want} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.stdin.end('close\n');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  private next(): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer from the holder; stderr: ${this.proc.stderr.read()?.toString() ?? ''}`)), 30_000);
      this.waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
      this.deliver();
    });
  }

  private deliver(): void {
    if (this.waiting === null || this.lines.length === 0) return;
    const waiting = this.waiting;
    this.waiting = null;
    waiting(this.lines.shift()!);
  }
}

describe('a folder written with durability log, and another writer', () => {
  it('the logging process hands the folder over: its log closed, the claim dropped; both commit; it logs again once the other is gone', async () => {
    const path = folder();
    const { holder, ready } = await Holder.start(path, 'log');
    expect(ready).toBe('ready logging=true');
    for (let i = 0; i < 6; i++) expect(await holder.ask(`put ${i}`)).toBe(`put ${i} logging=true`);
    expect(logFiles(path).length).toBeGreaterThan(0);

    const other = open(path, 'sync'); // waits for the handover
    expect(logFiles(path)).toEqual([]);
    expect(existsSync(join(path, OWNER_FILE))).toBe(false);
    expect(keys(other)).toEqual([0, 1, 2, 3, 4, 5]);
    other.write((txn) => txn.put(other.database('items'), key(100), Buffer.from('from the other writer')));
    expect(await holder.ask('put 6')).toBe('put 6 logging=false');
    expect(await holder.ask('async 7')).toBe('async 7 logging=false');
    expect(keys(other)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 100]);

    close(other);
    await holder.awaitLogging(true);
    expect(logFiles(path).length).toBeGreaterThan(0);
    expect(registrations(path)).toEqual([]);
    expect(await holder.ask('put 8')).toBe('put 8 logging=true');
    expect(await holder.ask('async 9')).toBe('async 9 logging=true');
    await holder.stop();

    const after = open(path, 'sync');
    expect(keys(after)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100]);
  }, 60_000);

  it("a 'log' process that opens beside another writer commits durably until that writer closes", async () => {
    const path = folder();
    const other = open(path, 'sync');
    other.write((txn) => txn.put(other.database('items'), key(1), Buffer.from('x')));
    const { holder, ready } = await Holder.start(path, 'log');
    expect(ready).toBe('ready logging=false');
    expect(await holder.ask('put 2')).toBe('put 2 logging=false');
    expect(logFiles(path)).toEqual([]);
    close(other);
    await holder.awaitLogging(true);
    expect(await holder.ask('put 3')).toBe('put 3 logging=true');
  }, 60_000);

  it("two 'log' processes: the first hands over to the second, neither logs while both are open, the one left logs again", async () => {
    const path = folder();
    const first = open(path, 'log');
    expect(first.logging).toBe(true);
    first.write((txn) => txn.put(first.database('items'), key(1), Buffer.from('x')));
    // This process's event loop must run for it to notice the second one: the holder is spawned asynchronously.
    const { holder, ready } = await Holder.start(path, 'log');
    expect(ready).toBe('ready logging=false');
    expect(first.logging).toBe(false);
    first.write((txn) => txn.put(first.database('items'), key(2), Buffer.from('y')));
    expect(await holder.ask('put 3')).toBe('put 3 logging=false');
    await holder.stop();
    const deadline = Date.now() + 10_000;
    while (!first.logging && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(first.logging).toBe(true);
    first.write((txn) => txn.put(first.database('items'), key(4), Buffer.from('z')));
    expect(keys(first)).toEqual([1, 2, 3, 4]);
  }, 60_000);

  it('a writer waits for a logging process whose event loop is blocked no longer than handoverTimeoutMs, and leaves nothing behind', async () => {
    const path = folder();
    const { holder } = await Holder.start(path, 'log');
    expect(await holder.ask('put 1')).toBe('put 1 logging=true');
    holder.proc.stdin.write('block 4000\n');
    await new Promise((resolve) => setTimeout(resolve, 200)); // the holder is inside its block
    const started = Date.now();
    let error: unknown;
    try {
      open(path, 'sync', { handoverTimeoutMs: 500 });
    } catch (err) {
      error = err;
    }
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('BUSY');
    expect((error as Error).message).toMatch(/did not hand the folder over to this writer within 500 ms/);
    expect(registrations(path)).toEqual([]);
    expect(await holder.ask('logging')).toBe('unblocked');
    expect(await holder.ask('logging')).toBe('logging=true'); // nobody registered: it never handed over
  }, 60_000);

  it('a logging process writing in a loop that never yields hands over while it writes (it looks for writers every NOTICE_WRITERS_MS)', async () => {
    const path = folder();
    const { holder } = await Holder.start(path, 'log');
    expect(await holder.ask('put 1')).toBe('put 1 logging=true');
    holder.proc.stdin.write('burst 3000\n');
    await new Promise((resolve) => setTimeout(resolve, 300)); // inside the burst
    const started = Date.now();
    const other = open(path, 'sync', { handoverTimeoutMs: 2000 });
    expect(Date.now() - started).toBeLessThan(2000);
    other.write((txn) => txn.put(other.database('items'), key(2), Buffer.from('y')));
    expect(await holder.ask('logging')).toMatch(/^burst \d+ logging=false$/);
  }, 60_000);

  it('a logging process that dies while a writer waits for it: the writer goes ahead and recovers its log', async () => {
    const path = folder();
    const { holder } = await Holder.start(path, 'log');
    for (let i = 0; i < 10; i++) expect(await holder.ask(`put ${i}`)).toBe(`put ${i} logging=true`);
    holder.proc.stdin.write('block 20000\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // This thread blocks inside open(): the kill comes from another process.
    spawn('sh', ['-c', `sleep 0.5; kill -9 ${holder.proc.pid}`], { stdio: 'ignore' });
    const other = open(path, 'sync', { handoverTimeoutMs: 10_000 });
    expect(await holder.exited).toBe(null);
    expect(keys(other)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(logFiles(path)).toEqual([]);
    expect(existsSync(join(path, OWNER_FILE))).toBe(false);
  }, 60_000);

  it('a logging process that cannot register itself to hand over goes on logging (it does not crash); the writer gets BUSY', async () => {
    const path = folder();
    const { holder } = await Holder.start(path, 'log');
    expect(await holder.ask('put 1')).toBe('put 1 logging=true');
    mkdirSync(join(path, `redo.writer-${holder.proc.pid}`)); // its registration cannot be written
    let error: unknown;
    try {
      // Asynchronously, so the holder's watcher runs meanwhile: a child process of our own.
      await new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '-e', `import('${fileURLToPath(new URL('../../src/storage/store.js', import.meta.url))}').then(({ Store }) => Store.open({ path: ${JSON.stringify(path)}, handoverTimeoutMs: 1500 })).catch((e) => { console.error(e.message); process.exit(3); })`], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 3 ? reject(new Error(err)) : resolve()));
      });
    } catch (err) {
      error = err;
    }
    expect(String(error)).toMatch(/did not hand the folder over/);
    expect(holder.proc.exitCode).toBe(null);
    expect(await holder.ask('put 2')).toBe('put 2 logging=true');
  }, 60_000);

  it('a read-only open neither waits nor stops the log', async () => {
    const path = folder();
    const { holder } = await Holder.start(path, 'log');
    expect(await holder.ask('put 1')).toBe('put 1 logging=true');
    const reader = Store.open({ path, readOnly: true });
    stores.push(reader);
    expect(keys(reader)).toEqual([1]);
    expect(await holder.ask('put 2')).toBe('put 2 logging=true');
  }, 60_000);
});
