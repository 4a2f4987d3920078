/**
 * `serve --auth-file` and `hub --port --auth-file`: the API verifies SigV4 against the file's keys
 * (right key accepted, wrong secret or key refused), a file others may read stops the command
 * before it serves, and an address other than loopback served without a file is warned about at
 * start unless `--allow-anonymous` says it is meant.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, ListStreamsCommand } from '@aws-sdk/client-dynamodb-streams';
import { afterEach, describe, expect, it } from 'vitest';
import { apiAuth, isLoopbackHost } from '../../src/cli/api-auth.js';
import { UsageError } from '../../src/cli/cli-io.js';
import { configureLogging } from '../../src/log/logger.js';
import { run, tempDir } from './run-cli.js';

const KEY_ID = 'AKIDGATEWAYAPP';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

afterEach(() => configureLogging());

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function authFile(mode = 0o600): string {
  const path = join(tempDir(), 'api-keys');
  writeFileSync(path, `# apps on the gateway\n${KEY_ID} ${SECRET}\n`);
  chmodSync(path, mode);
  return path;
}

/** Runs a long-running command until `pattern` shows on stdout; its first group is the endpoint. */
async function started(argv: string[], pattern: RegExp): Promise<{ endpoint: string; line: string; stop: () => Promise<{ code: number; err: string }> }> {
  const controller = new AbortController();
  let out = '';
  let exited = false;
  const running = run(argv, { signal: controller.signal, onOut: (t) => void (out += t) });
  void running.then(() => (exited = true));
  await until(() => pattern.test(out) || exited, 'the serving line');
  if (exited) throw new Error(`exited early: ${JSON.stringify(await running)}`);
  const m = pattern.exec(out)!;
  return { endpoint: m[1]!, line: m[0], stop: async () => (controller.abort(), running) };
}

function client(endpoint: string, secretAccessKey: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: KEY_ID, secretAccessKey }, maxAttempts: 1 });
}

async function expectVerified(endpoint: string, tables: string[]): Promise<void> {
  const good = client(endpoint, SECRET);
  const bad = client(endpoint, 'not-the-secret-at-all');
  const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: KEY_ID, secretAccessKey: 'not-the-secret-at-all' }, maxAttempts: 1 });
  try {
    expect((await good.send(new ListTablesCommand({}))).TableNames).toEqual(tables);
    await expect(bad.send(new PutItemCommand({ TableName: 'T', Item: { id: { S: 'x' } } }))).rejects.toMatchObject({ name: 'InvalidSignatureException' });
    await expect(streams.send(new ListStreamsCommand({}))).rejects.toMatchObject({ name: 'InvalidSignatureException' });
  } finally {
    good.destroy();
    bad.destroy();
    streams.destroy();
  }
}

describe('serve --auth-file', () => {
  it('verifies signatures against the file: the right secret is served, a wrong one refused', async () => {
    const s = await started(['serve', '--path', join(tempDir(), 'db'), '--port', '0', '--auth-file', authFile()], /serving \S+ on (http:\S+) \(SigV4 verified\)/);
    try {
      await expectVerified(s.endpoint, []);
    } finally {
      expect((await s.stop()).code).toBe(0);
    }
  });

  it('a file that group or others may read stops serve before it serves (usage error, exit 2)', async () => {
    const file = authFile(0o644);
    const r = await run(['serve', '--path', join(tempDir(), 'db'), '--port', '0', '--auth-file', file]);
    expect({ code: r.code, out: r.out }).toEqual({ code: 2, out: '' });
    expect(r.err).toBe(`error: --auth-file: ${file} holds secrets but group or others may access it (mode 0644): chmod 600 ${file}, owned by the user the service runs as\n`);
  });

  it('a non-loopback address without --auth-file is warned about at start', async () => {
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes, then the bind fails.
    const r = await run(['serve', '--path', join(tempDir(), 'db'), '--port', '0', '--host', '192.0.2.1']);
    const warning = r.err.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string })[0];
    expect(warning).toMatchObject({ level: 'warn', msg: expect.stringMatching(/^the DynamoDB API on 192\.0\.2\.1 verifies no signature: anyone who reaches it can read and write every table; give --auth-file FILE, or --allow-anonymous/) });
    expect(r.code).not.toBe(0);
  });

  it('--allow-anonymous and --auth-file together are a usage error', async () => {
    const r = await run(['serve', '--path', join(tempDir(), 'db'), '--allow-anonymous', '--auth-file', authFile()]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 2, err: 'error: --allow-anonymous and --auth-file exclude each other\n' });
  });
});

describe('hub --port --auth-file', () => {
  it('verifies signatures on the hub API and its Streams API', async () => {
    const s = await started(
      ['hub', '--path', join(tempDir(), 'hub'), '--url', 'mqtt://127.0.0.1:9', '--port', '0', '--auth-file', authFile()],
      /serving the DynamoDB API on (http:\S+) \(SigV4 verified\)/,
    );
    try {
      await expectVerified(s.endpoint, ['edgetable.dead-letters']);
    } finally {
      expect((await s.stop()).code).toBe(0);
    }
  }, 30_000);

  it('--auth-file without --port is a usage error', async () => {
    const r = await run(['hub', '--path', join(tempDir(), 'hub'), '--url', 'mqtt://127.0.0.1:9', '--auth-file', authFile()]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 2, err: 'error: --auth-file, --auth-region and --allow-anonymous are about the API of --port: give --port too\n' });
  });
});

describe('apiAuth: the warning for an open API', () => {
  const warnings = (flags: Parameters<typeof apiAuth>[0], host: string): string[] => {
    const lines: string[] = [];
    configureLogging({ level: 'info', sink: { write: (line) => void lines.push(line) } });
    expect(apiAuth(flags, host, 'serve')).toBeUndefined();
    return lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
  };

  it.each(['0.0.0.0', '::', '192.168.1.20', 'gateway.local', 'fe80::1'])('warns when %s is served without --auth-file', (host) => {
    expect(warnings({}, host)).toEqual([
      `the DynamoDB API on ${host} verifies no signature: anyone who reaches it can read and write every table; give --auth-file FILE, or --allow-anonymous to serve so on purpose`,
    ]);
  });

  it.each(['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('says nothing for the loopback address %s', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
    expect(warnings({}, host)).toEqual([]);
  });

  it('--allow-anonymous silences it', () => {
    expect(warnings({ allowAnonymous: true }, '0.0.0.0')).toEqual([]);
  });

  it('--auth-region without --auth-file is a usage error; with it, the region is pinned', () => {
    expect(() => apiAuth({ authRegion: 'eu-west-1' }, '127.0.0.1', 'serve')).toThrow(new UsageError('--auth-region needs --auth-file'));
    expect(apiAuth({ authFile: authFile(), authRegion: 'eu-west-1' }, '0.0.0.0', 'serve')).toEqual({ credentials: { [KEY_ID]: SECRET }, region: 'eu-west-1' });
  });
});
