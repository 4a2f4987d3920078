/**
 * Runs the CLI in-process through main() with captured output (what most CLI tests use: a spawned
 * CLI costs about a second under tsx), and temp folders removed after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/cli-io.js';

export type Run = { code: number; out: string; err: string };
export type RunOptions = { errIsTty?: boolean; signal?: AbortSignal; onOut?: (text: string) => void; onErr?: (text: string) => void; stdin?: string; progressIntervalMs?: number };

export async function run(argv: string[], options: RunOptions = {}): Promise<Run> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (text) => {
      out += text;
      options.onOut?.(text);
    },
    err: (text) => {
      err += text;
      options.onErr?.(text);
    },
    errIsTty: options.errIsTty ?? false,
    ...(options.signal && { signal: options.signal }),
    ...(options.stdin !== undefined && { stdin: Readable.from([options.stdin]) }),
    ...(options.progressIntervalMs !== undefined && { progressIntervalMs: options.progressIntervalMs }),
  };
  const code = await main(argv, io);
  return { code, out, err };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-'));
  dirs.push(dir);
  return dir;
}
