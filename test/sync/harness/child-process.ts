/**
 * The parent's side of the convergence test's processes (devices, hub, broker): each is a script
 * forked with tsx and driven over the IPC channel, request by request (`call`), so the parent
 * knows exactly which requests a process answered before it was SIGKILLed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleStorageChildren } from '../../storage/fixtures/storage-children.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../../..');
/** Paths from this folder; the fleet test's device host (test/fleet/) is forked the same way. */
const SCRIPTS = ['device-process.ts', 'hub-process.ts', 'broker-process.ts', '../../fleet/fleet-device.ts'];
const TESTS = join(ROOT, 'test');
let entries: Map<string, { file: string; execArgv: string[] }> | undefined;

/**
 * The child scripts bundled once with esbuild (it comes with tsx): a device or hub restarted under
 * load starts in a fraction of tsx's time, so a restart is over before the schedule moves on.
 * Splitting keeps the engine's lazy imports lazy. Without esbuild, tsx runs the sources.
 */
function entry(script: string): { file: string; execArgv: string[] } {
  if (!entries) {
    entries = new Map();
    try {
      const esbuild = createRequire(join(ROOT, 'package.json'))('esbuild') as { buildSync(o: Record<string, unknown>): unknown };
      // One folder per checkout: worktrees that share one node_modules must not run each other's bundles.
      const outdir = join(ROOT, 'node_modules', '.cache', `edgetable-convergence-${createHash('sha1').update(ROOT).digest('hex').slice(0, 8)}`);
      esbuild.buildSync({ entryPoints: SCRIPTS.map((s) => join(HERE, s)), bundle: true, splitting: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outdir, outbase: TESTS, outExtension: { '.js': '.mjs' }, logLevel: 'silent' });
      bundleStorageChildren(esbuild as Parameters<typeof bundleStorageChildren>[0], outdir);
      for (const s of SCRIPTS) entries.set(s, { file: join(outdir, relative(TESTS, join(HERE, s)).replace(/\.ts$/, '.mjs')), execArgv: [] });
    } catch {
      for (const s of SCRIPTS) entries.set(s, { file: join(HERE, s), execArgv: ['--import', 'tsx'] });
    }
  }
  return entries.get(script)!;
}

/** What a child sends: answers to calls, and events (`ready` once it started). */
export type ChildMessage = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string } | { event: string; data?: unknown };

export class ProcessGone extends Error {}

export class HarnessChild {
  private readonly proc: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly events: { event: string; data?: unknown }[] = [];
  private readonly eventWaiters: { event: string; resolve: (data: unknown) => void }[] = [];
  readonly exited: Promise<number | null>;
  /** The last lines of the child's stderr, for failure messages. */
  stderr = '';

  constructor(
    readonly name: string,
    script: string,
    config: unknown,
  ) {
    const { file, execArgv } = entry(script);
    this.proc = fork(file, [JSON.stringify(config)], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.proc.stderr!.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4000)));
    this.proc.on('message', (m: ChildMessage) => {
      if ('event' in m) {
        this.events.push(m);
        for (const w of this.eventWaiters.filter((x) => x.event === m.event)) {
          this.eventWaiters.splice(this.eventWaiters.indexOf(w), 1);
          w.resolve(m.data);
        }
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(`${this.name}: ${m.error}`));
    });
    this.exited = new Promise((resolve) =>
      this.proc.on('exit', (code) => {
        for (const p of this.pending.values()) p.reject(new ProcessGone(`${this.name} exited (${code ?? this.proc.signalCode})`));
        this.pending.clear();
        resolve(code);
      }),
    );
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Resolves with the event's data once the child sent it (at once if it already did). */
  event(event: string, timeoutMs: number): Promise<unknown> {
    const seen = this.events.find((e) => e.event === event);
    if (seen) return Promise.resolve(seen.data);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no '${event}' within ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
      this.exited.then((code) => reject(new ProcessGone(`${this.name} exited (${code ?? this.proc.signalCode}) before '${event}'; stderr: ${this.stderr}`)), () => undefined);
      this.eventWaiters.push({
        event,
        resolve: (data) => {
          clearTimeout(timer);
          resolve(data);
        },
      });
    });
  }

  call<T>(cmd: string, args: Record<string, unknown> = {}): Promise<T> {
    // A child being killed has lost its IPC channel before its exit is reported: not running either.
    if (!this.alive || !this.proc.connected) return Promise.reject(new ProcessGone(`${this.name} is not running`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      // With a callback, a channel closed under the send rejects this call instead of emitting an
      // 'error' the parent has no listener for (which ended a 30-minute fleet run at 1,414 s).
      this.proc.send({ id, cmd, ...args }, (err) => {
        if (err === null || !this.pending.delete(id)) return;
        reject(new ProcessGone(`${this.name} is not running (${err.message})`));
      });
    });
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.alive) this.proc.kill(signal);
    await this.exited;
  }
}

/** The child's side: answers each call with `handler`'s result (or error), in arrival order. */
export function serveCalls(handler: (cmd: string, args: Record<string, unknown>) => unknown | Promise<unknown>): void {
  let chain = Promise.resolve();
  process.on('message', (m: { id: number; cmd: string } & Record<string, unknown>) => {
    // One call at a time: the writes' order is the order the parent issued them.
    chain = chain.then(async () => {
      try {
        process.send!({ id: m.id, ok: true, result: (await handler(m.cmd, m)) ?? null });
      } catch (err) {
        process.send!({ id: m.id, ok: false, error: `${(err as Error).name}: ${(err as Error).message}` });
      }
    });
  });
  process.on('disconnect', () => process.exit(0)); // the parent is gone: do not linger
}

export function sendEvent(event: string, data?: unknown): void {
  process.send!({ event, data });
}
