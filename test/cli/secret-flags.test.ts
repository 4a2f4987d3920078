/**
 * Secrets on the command line are readable by every user (`ps`): the broker password and the
 * forwarding key come from a private file or the environment; the old argument flags still work
 * and warn. A file that group or others may read is refused before anything is opened.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/cli-io.js';
import { forwardOptions } from '../../src/cli/commands/hub.js';
import { mqttConnectionOptions } from '../../src/cli/mqtt-flags.js';
import { readSecret } from '../../src/cli/secret-flags.js';
import { configureLogging } from '../../src/log/logger.js';
import { run, tempDir } from './run-cli.js';

const SECRET = 'broker-secret-0123';

function secretFile(text: string, mode: number): string {
  const path = join(tempDir(), 'secret');
  writeFileSync(path, text);
  chmodSync(path, mode); // the umask does not decide
  return path;
}

/** Warnings logged while `fn` runs, and what it returned. */
function logged<T>(fn: () => T): { result: T; warnings: string[] } {
  const lines: string[] = [];
  configureLogging({ level: 'info', sink: { write: (line) => void lines.push(line) } });
  const result = fn();
  return { result, warnings: lines.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'warn').map((l) => l.msg) };
}

afterEach(() => configureLogging({ level: 'silent' }));

const password = (flags: { password?: string; passwordFile?: string }, env: NodeJS.ProcessEnv = {}) =>
  readSecret({ flag: '--password', value: flags.password, fileFlag: '--password-file', file: flags.passwordFile, env: 'EDGETABLE_MQTT_PASSWORD', component: 'sync' }, env);

describe('readSecret', () => {
  it('takes a private file, without the line end an editor adds, and warns about nothing', () => {
    expect(logged(() => password({ passwordFile: secretFile(`${SECRET}\n`, 0o600) }))).toEqual({ result: SECRET, warnings: [] });
    expect(password({ passwordFile: secretFile(`${SECRET}\r\n`, 0o400) })).toBe(SECRET);
    expect(password({ passwordFile: secretFile(`${SECRET} `, 0o600) })).toBe(`${SECRET} `); // spaces are the secret's
  });

  it('takes the environment variable when neither flag is given; nothing when it is empty', () => {
    expect(logged(() => password({}, { EDGETABLE_MQTT_PASSWORD: SECRET }))).toEqual({ result: SECRET, warnings: [] });
    expect(password({}, { EDGETABLE_MQTT_PASSWORD: '' })).toBeUndefined();
    expect(password({}, {})).toBeUndefined();
  });

  it('still takes the argument flag, warning that ps shows it', () => {
    expect(logged(() => password({ password: SECRET }, { EDGETABLE_MQTT_PASSWORD: 'other' }))).toEqual({
      result: SECRET,
      warnings: ['--password puts the secret on the command line, where ps shows it to every user of this machine: use --password-file FILE (mode 600) or EDGETABLE_MQTT_PASSWORD instead'],
    });
  });

  it.each(['0640', '0604', '0660', '0644', '0620'])('refuses a file of mode %s, which others than its owner may read or write', (octal) => {
    const file = secretFile(SECRET, parseInt(octal, 8));
    expect(() => password({ passwordFile: file })).toThrow(new UsageError(`--password-file: ${file} holds secrets but group or others may access it (mode ${octal}): chmod 600 ${file}, owned by the user the service runs as`));
  });

  it('refuses an empty file, a missing one, and both flags at once', () => {
    const empty = secretFile('\n', 0o600);
    expect(() => password({ passwordFile: empty })).toThrow(new UsageError(`--password-file: ${empty} is empty`));
    expect(() => password({ passwordFile: join(tempDir(), 'none') })).toThrow(/^--password-file: cannot read .*none: ENOENT/);
    expect(() => password({ password: SECRET, passwordFile: secretFile(SECRET, 0o600) })).toThrow(new UsageError('--password and --password-file exclude each other'));
  });
});

describe('the broker password of sync and hub', () => {
  it('reaches the MQTT connection from --password-file', () => {
    expect(mqttConnectionOptions({ username: 'pi-1', passwordFile: secretFile(`${SECRET}\n`, 0o600) }, 'sync')).toEqual({ username: 'pi-1', password: SECRET });
  });

  it('sync refuses a password file others may read before it opens or creates the store', async () => {
    const path = join(tempDir(), 'db');
    const file = secretFile(SECRET, 0o644);
    const r = await run(['sync', '--path', path, '--url', 'mqtt://127.0.0.1:9', '--device', 'pi-1', '--table', 'T', '--password-file', file]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 2, err: `error: --password-file: ${file} holds secrets but group or others may access it (mode 0644): chmod 600 ${file}, owned by the user the service runs as\n` });
    expect(existsSync(path)).toBe(false);
  });
});

describe('the forwarding key of hub', () => {
  const base = { forwardEndpoint: 'http://127.0.0.1:9', forwardRegion: 'us-east-1', forwardWriteMode: 'conditional' };

  it('comes from --forward-secret-access-key-file beside --forward-access-key-id', () => {
    const file = secretFile(`${SECRET}\n`, 0o600);
    expect(logged(() => forwardOptions({ ...base, forwardAccessKeyId: 'AKID1', forwardSecretAccessKeyFile: file })?.credentials)).toEqual({
      result: { accessKeyId: 'AKID1', secretAccessKey: SECRET },
      warnings: [],
    });
  });

  it('still comes from --forward-secret-access-key, warning that ps shows it', () => {
    expect(logged(() => forwardOptions({ ...base, forwardAccessKeyId: 'AKID1', forwardSecretAccessKey: SECRET })?.credentials)).toEqual({
      result: { accessKeyId: 'AKID1', secretAccessKey: SECRET },
      warnings: ['--forward-secret-access-key puts the secret on the command line, where ps shows it to every user of this machine: use --forward-secret-access-key-file FILE (mode 600) or AWS_SECRET_ACCESS_KEY instead'],
    });
  });

  it('refuses a key without its id, a file others may read, and both secret flags', async () => {
    const file = secretFile(SECRET, 0o600);
    const together = new UsageError('--forward-access-key-id and --forward-secret-access-key-file (or --forward-secret-access-key) go together');
    expect(() => forwardOptions({ ...base, forwardSecretAccessKeyFile: file })).toThrow(together);
    expect(() => forwardOptions({ ...base, forwardAccessKeyId: 'AKID1' })).toThrow(together);
    expect(() => forwardOptions({ ...base, forwardAccessKeyId: 'AKID1', forwardSecretAccessKey: SECRET, forwardSecretAccessKeyFile: file })).toThrow(
      new UsageError('--forward-secret-access-key and --forward-secret-access-key-file exclude each other'),
    );
    const open = secretFile(SECRET, 0o640);
    const path = join(tempDir(), 'hub');
    const r = await run(['hub', '--path', path, '--url', 'mqtt://127.0.0.1:9', '--forward-endpoint', 'http://127.0.0.1:9', '--forward-access-key-id', 'AKID1', '--forward-secret-access-key-file', open]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 2, err: `error: --forward-secret-access-key-file: ${open} holds secrets but group or others may access it (mode 0640): chmod 600 ${open}, owned by the user the service runs as\n` });
    expect(existsSync(path)).toBe(false);
  });
});
