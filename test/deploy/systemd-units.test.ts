/**
 * deploy/systemd/: each unit runs its command as the dedicated user, with the store's folder the
 * only writable path, restarts on failure (not on a usage error), logs to journald, names its
 * store with EDGETABLE_PATH, and its ExecStart, with edgetable.env's example values, is a command
 * line the CLI accepts: every option it passes is one the command has.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../cli/run-cli.js';

const dir = join(import.meta.dirname, '..', '..', 'deploy', 'systemd');
const BIN = '/opt/edgetable/node_modules/.bin/edgetable';

function settings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!]);
  }
  return out;
}

/** systemd's expansion: ${VAR} is one word, $VAR splits on whitespace. */
function expand(command: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  for (const word of command.split(/\s+/)) {
    const one = /^\$\{(\w+)\}$/.exec(word);
    const split = /^\$(\w+)$/.exec(word);
    if (one) words.push(env[one[1]!]!);
    else if (split) words.push(...env[split[1]!]!.split(/\s+/));
    else words.push(word);
  }
  return words;
}

const env = Object.fromEntries(
  readFileSync(join(dir, 'edgetable.env'), 'utf8')
    .split('\n')
    .filter((l) => /^\w+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);
const units = readdirSync(dir).filter((f) => f.endsWith('.service'));

describe('deploy/systemd units', () => {
  it('has one unit per long-running command', () => {
    expect(units.sort()).toEqual(['edgetable-bridge.service', 'edgetable-hub.service', 'edgetable-serve.service', 'edgetable-sync.service']);
  });

  for (const unit of units) {
    it(`${unit}: dedicated user, one writable folder, restart on failure, journald, EDGETABLE_PATH, an ExecStart the CLI accepts`, async () => {
      const s = settings(readFileSync(join(dir, unit), 'utf8'));
      expect(s.get('User')).toEqual(['edgetable']);
      expect(s.get('ReadWritePaths')).toEqual(['/var/lib/edgetable']);
      expect(s.get('ProtectSystem')).toEqual(['strict']);
      expect(s.get('Restart')).toEqual(['on-failure']);
      expect(s.get('RestartPreventExitStatus')).toEqual(['2']);
      expect(s.get('StandardError')).toEqual(['journal']);
      const path = s.get('Environment')!.find((e) => e.startsWith('EDGETABLE_PATH='));
      expect(path).toMatch(/^EDGETABLE_PATH=\/var\/lib\/edgetable\/\w+$/);

      const [bin, command, ...args] = expand(s.get('ExecStart')![0]!, env);
      expect(bin).toBe(BIN);
      expect(unit).toBe(`edgetable-${command}.service`);
      const help = await run([command!, '--help']);
      expect(help.code).toBe(0);
      for (const option of args.filter((a) => a.startsWith('--'))) expect(help.out, `${command} ${option}`).toContain(`${option} `);
    });
  }
});
