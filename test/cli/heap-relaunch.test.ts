/**
 * bin/edgetable.js as a long-running command is started: `serve` runs in a child with the heap
 * flags (src/cli/heap-flags.ts), the wrapper passes SIGTERM on and exits as the child does, and
 * the child stops by itself when the wrapper is killed outright. Reads /proc (Linux).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_FLAGS, HEAP_FLAGS_ENV } from '../../src/cli/heap-flags.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'edgetable.js');
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function startServe(env: NodeJS.ProcessEnv): { wrapper: ChildProcess; ready: Promise<void>; exit: Promise<{ code: number | null; signal: string | null }> } {
  const dir = mkdtempSync(join(tmpdir(), 'et-heap-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const clean = { ...process.env, ...env };
  delete clean['NODE_OPTIONS'];
  const wrapper = spawn(process.execPath, [BIN, 'serve', '--path', join(dir, 'db'), '--port', '0'], { env: clean, stdio: ['pipe', 'pipe', 'pipe'] });
  cleanups.push(() => wrapper.kill('SIGKILL'));
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) => wrapper.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    wrapper.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('edgetable serving')) resolve();
    });
    void exit.then(({ code }) => reject(new Error(`serve exited (${code}) before serving: ${out}`)));
  });
  return { wrapper, ready, exit };
}

/** The wrapper's children, each killed after the test should it outlive it. */
function children(pid: number): number[] {
  const pids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  for (const child of pids) cleanups.push(() => alive(child) && process.kill(child, 'SIGKILL'));
  return pids;
}
const cmdline = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const alive = (pid: number): boolean => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));

async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe.runIf(existsSync('/proc/self/task'))('bin/edgetable.js and the heap flags', () => {
  it('serves from a child started with the heap flags; SIGTERM to the wrapper stops both, exit code 0', async () => {
    const { wrapper, ready, exit } = startServe({});
    await ready;
    const [child] = children(wrapper.pid!);
    expect(child).toBeDefined();
    expect(cmdline(child!)).toEqual(expect.arrayContaining([...DEFAULT_HEAP_FLAGS, 'serve']));
    wrapper.kill('SIGTERM');
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(await gone(child!, 5000)).toBe(true);
  }, 30_000);

  it('the child stops by itself when the wrapper is SIGKILLed', async () => {
    const { wrapper, ready, exit } = startServe({});
    await ready;
    const [child] = children(wrapper.pid!);
    wrapper.kill('SIGKILL');
    await exit;
    expect(await gone(child!, 10_000)).toBe(true);
  }, 30_000);

  it(`runs in one process when ${HEAP_FLAGS_ENV} is empty`, async () => {
    const { wrapper, ready, exit } = startServe({ [HEAP_FLAGS_ENV]: '' });
    await ready;
    expect(children(wrapper.pid!)).toEqual([]);
    wrapper.kill('SIGTERM');
    expect(await exit).toEqual({ code: 0, signal: null });
  }, 30_000);
});
