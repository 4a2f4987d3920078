/**
 * deploy/systemd/: each unit runs its command as the dedicated user, with the store's folder the
 * only writable path, restarts on failure (not on a usage error), logs to journald, names its
 * store with EDGETABLE_PATH, and its ExecStart, with edgetable.env's example values, is a command
 * line the CLI accepts: every option it passes is one the command has. The examples are the
 * secure set-up: hardened units (systemd-analyze rates each 2.0 or less where it is installed),
 * the broker over TLS, secrets in files, the hub admitting listed devices only.
 */
import { spawnSync } from 'node:child_process';
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

const HARDENING: Record<string, string> = {
  CapabilityBoundingSet: '',
  NoNewPrivileges: 'yes',
  PrivateTmp: 'yes',
  ProtectHome: 'yes',
  ProtectKernelTunables: 'yes',
  ProtectKernelModules: 'yes',
  ProtectKernelLogs: 'yes',
  ProtectControlGroups: 'yes',
  RestrictNamespaces: 'yes',
  RestrictSUIDSGID: 'yes',
  LockPersonality: 'yes',
  RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6',
  SystemCallArchitectures: 'native',
  SystemCallErrorNumber: 'EPERM',
  UMask: '0077',
};

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

  for (const unit of units) {
    it(`${unit}: hardened (no capabilities, no new privileges, a system call filter, private /tmp, no W+X ban V8 could not live with)`, () => {
      const s = settings(readFileSync(join(dir, unit), 'utf8'));
      for (const [key, value] of Object.entries(HARDENING)) expect(s.get(key), key).toEqual([value]);
      expect(s.get('SystemCallFilter')).toEqual(['@system-service', '~@privileged']);
      expect(s.get('StateDirectoryMode')).toEqual(['0700']);
      expect(s.has('MemoryDenyWriteExecute')).toBe(false);
      expect(s.get(unit.includes('bridge') ? 'DevicePolicy' : 'PrivateDevices')).toEqual([unit.includes('bridge') ? 'closed' : 'yes']);
    });
  }

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  it.skipIf(analyze.status !== 0)('systemd-analyze security rates every unit 2.0 or less ("OK"), the figure each states', () => {
    for (const unit of units) {
      const r = spawnSync('systemd-analyze', ['security', '--offline=true', join(dir, unit)], { encoding: 'utf8', timeout: 30_000 });
      const score = /Overall exposure level for .*: (\d+\.\d)/.exec(r.stdout)?.[1];
      expect(Number(score), unit).toBeLessThanOrEqual(2.0);
      expect(readFileSync(join(dir, unit), 'utf8'), unit).toContain(`rates this unit ${score} `);
    }
  });

  it('talks to the broker over TLS with a password file, and the hub admits listed devices only', () => {
    expect(env['EDGETABLE_BROKER_URL']).toMatch(/^mqtts:\/\//);
    const mqtt = env['EDGETABLE_MQTT_ARGS']!.split(/\s+/);
    expect(mqtt).toEqual(expect.arrayContaining(['--ca', '--password-file']));
    const hub = env['EDGETABLE_HUB_ARGS']!.split(/\s+/);
    expect(hub).toEqual(expect.arrayContaining(['--allow-devices-file', '--subscriptions-file']));
    for (const unit of ['edgetable-sync.service', 'edgetable-hub.service']) expect(settings(readFileSync(join(dir, unit), 'utf8')).get('ExecStart')![0]).toContain('$EDGETABLE_MQTT_ARGS');
    const everything = [readFileSync(join(dir, 'edgetable.env'), 'utf8'), ...units.map((u) => readFileSync(join(dir, u), 'utf8'))].join('\n');
    expect(everything).not.toMatch(/--password\s|--forward-secret-access-key\s|mqtt:\/\//); // no secret as an argument, no plaintext broker
  });
});
