/**
 * A Mosquitto process of our own (never the system one on 1883): a config in a temp folder, a free
 * loopback port, started and stopped by PID. `restart()` stops it and starts it again on the same
 * port: a real broker restart as clients see it (connections cut, sessions gone).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { TestPki } from './test-pki.js';

export type OwnMosquitto = {
  readonly port: number;
  readonly dir: string;
  readonly pid: number | undefined;
  /** Everything it wrote to stderr (connection refusals, ACL denials are logged here). */
  log(): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(downMs?: number): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
};

/** The mosquitto binary, or undefined when it is not installed. */
export function findMosquitto(): string | undefined {
  for (const candidate of ['/usr/sbin/mosquitto', '/usr/local/sbin/mosquitto', '/usr/bin/mosquitto']) if (existsSync(candidate)) return candidate;
  const which = spawnSync('which', ['mosquitto'], { encoding: 'utf8' });
  const found = which.stdout?.trim();
  return which.status === 0 && found ? found : undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts mosquitto with `config(port, dir)` (the listener lines and anything else) written to
 * `<dir>/mosquitto.conf`; `dir` is a fresh temp folder the caller may fill first via `prepare`.
 */
export async function startOwnMosquitto(config: (port: number, dir: string) => string, prepare?: (dir: string) => void): Promise<OwnMosquitto> {
  const binary = findMosquitto();
  if (!binary) throw new Error('mosquitto is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-mosquitto-'));
  prepare?.(dir);
  const port = await freePort();
  const confPath = join(dir, 'mosquitto.conf');
  // `user`: as root, mosquitto would otherwise drop to user mosquitto, who cannot read our 0700 temp folders.
  writeFileSync(confPath, `${config(port, dir)}\nuser ${userInfo().username}\npersistence false\nlog_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n`);
  let child: ChildProcess | undefined;
  let stderr = '';

  const start = async (): Promise<void> => {
    if (child) return;
    const c = spawn(binary, ['-c', confPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = c;
    c.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.length > 1_000_000) stderr = stderr.slice(-500_000);
    });
    c.once('exit', () => {
      if (child === c) child = undefined;
    });
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (!child || child !== c) throw new Error(`mosquitto exited at start: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`mosquitto did not listen on ${port}: ${stderr}`);
      await sleep(30);
    }
  };

  const stop = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.pid === undefined) {
      child = undefined;
      return;
    }
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    process.kill(c.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (c.exitCode === null && c.pid !== undefined) process.kill(c.pid, 'SIGKILL');
    }, 3000);
    await exited;
    clearTimeout(timer);
    child = undefined;
  };

  try {
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    port,
    dir,
    get pid() {
      return child?.pid;
    },
    log: () => stderr,
    stop,
    start,
    restart: async (downMs = 0) => {
      await stop();
      if (downMs > 0) await sleep(downMs);
      await start();
    },
    dispose: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Starts a Mosquitto whose only listener is TLS on loopback, signed by `pki`, that requires a
 * client certificate and takes its common name as the login, with `acl` as its ACL file.
 */
export function startTlsMosquitto(pki: TestPki, acl: string, o: { readonly allowAnonymous: boolean }): Promise<OwnMosquitto> {
  return startOwnMosquitto(
    (port, dir) =>
      [
        `listener ${port} 127.0.0.1`,
        `cafile ${pki.caPath}`,
        `certfile ${pki.serverCertPath}`,
        `keyfile ${pki.serverKeyPath}`,
        'require_certificate true',
        'use_identity_as_username true',
        `allow_anonymous ${o.allowAnonymous}`,
        `acl_file ${join(dir, 'acl')}`,
      ].join('\n'),
    (dir) => writeFileSync(join(dir, 'acl'), acl),
  );
}
