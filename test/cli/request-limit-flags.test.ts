/**
 * The request-limit flags of `serve` and `hub --port` (src/cli/request-limit-flags.ts): sizes in
 * bytes, KiB or MiB, timeouts in seconds, limits that cannot work refused as usage errors (exit 2)
 * naming their flag, and the limits reaching the server they start.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byteSize, requestLimits, seconds } from '../../src/cli/request-limit-flags.js';
import { run, tempDir } from './run-cli.js';

describe('request-limit flags', () => {
  it('read sizes as bytes, KiB or MiB, and timeouts as seconds', () => {
    expect([byteSize('1048576'), byteSize('512KiB'), byteSize('4MiB'), byteSize('4 mib')]).toEqual([1048576, 512 * 1024, 4 * 1024 * 1024, 4 * 1024 * 1024]);
    expect(() => byteSize('4MB')).toThrow('expected a size in bytes, e.g. 1048576, 512KiB or 4MiB');
    expect(() => byteSize('0')).toThrow();
    expect([seconds('10'), seconds('0.5')]).toEqual([10_000, 500]);
    expect(() => seconds('0')).toThrow('expected a positive number of seconds');
    expect(() => seconds('soon')).toThrow();
  });

  it('give the server the limits named, in milliseconds', () => {
    expect(requestLimits({ maxConnections: 32, headersTimeout: 2_000, keepAliveTimeout: 1_500 })).toEqual({ maxConnections: 32, headersTimeoutMs: 2_000, keepAliveTimeoutMs: 1_500 });
    expect(requestLimits({})).toEqual({});
  });

  it.each([
    [['--max-body-bytes', '17MiB'], "error: request limits: --max-body-bytes must be at most 16777216 (DynamoDB's 16 MiB request limit), not 17825792\n"],
    [['--max-body-bytes-in-flight', '8MiB'], /^error: request limits: --max-body-bytes-in-flight \(8388608\) must be at least 4\/3 of --max-body-bytes \(16777216\)/],
    [['--headers-timeout', '30', '--request-timeout', '20'], 'error: --headers-timeout (30 s) must not exceed --request-timeout (20 s)\n'],
    [['--headers-timeout', '90'], 'error: --headers-timeout (90 s) must not exceed --request-timeout (60 s)\n'],
    [['--max-connections', '0'], /^error: option '--max-connections <n>' argument '0' is invalid\. expected a positive integer/],
  ])('serve %j is a usage error (exit 2) before the store is opened', async (flags, message) => {
    const path = join(tempDir(), 'data');
    const r = await run(['serve', '--path', path, '--port', '0', ...flags]);
    expect(r.code).toBe(2);
    if (typeof message === 'string') expect(r.err).toBe(message);
    else expect(r.err).toMatch(message);
  }, 10_000);

  it('serve --max-body-bytes 1KiB answers a 2 KiB body 413 with the limit it was given', async () => {
    const stop = new AbortController();
    let announced: (port: number) => void = () => undefined;
    const portKnown = new Promise<number>((resolve) => (announced = resolve));
    const running = run(['serve', '--path', join(tempDir(), 'data'), '--port', '0', '--max-body-bytes', '1KiB', '--max-connections', '4'], {
      signal: stop.signal,
      onOut: (text) => {
        const m = /on http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
        if (m) announced(Number(m[1]));
      },
    });
    try {
      const port = await portKnown;
      const res = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' },
        body: JSON.stringify({ pad: 'x'.repeat(2048) }),
      });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ __type: 'com.amazon.coral.validate#ValidationException', message: 'Request size exceeded the limit of 1024 bytes' });
    } finally {
      stop.abort();
      expect((await running).code).toBe(0);
    }
  });
});
