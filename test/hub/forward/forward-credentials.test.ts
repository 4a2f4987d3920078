/**
 * A forwarder with no credentials anywhere (no flags, no AWS_* variables, no profile files, no
 * instance metadata) refuses to start with one clear message, in-process and from the CLI; with
 * credentials in the environment it starts as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { checkForwardCredentials, startForwarder } from '../../../src/hub/forward/start-forwarder.js';
import { createReadings, tempDb, until, writeReadings, type Cleanup } from '../../sync/fixtures.js';
import { startDynalite } from './dynalite.js';

const cleanups: Cleanup[] = [];
const saved = { ...process.env };
beforeEach(() => {
  for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) delete process.env[name];
  // The SDK's chain would otherwise read ~/.aws and ask the EC2 metadata service (off loopback).
  process.env['AWS_SHARED_CREDENTIALS_FILE'] = '/nonexistent/edgetable-test/credentials';
  process.env['AWS_CONFIG_FILE'] = '/nonexistent/edgetable-test/config';
  process.env['AWS_EC2_METADATA_DISABLED'] = 'true';
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

const MESSAGE = /^forwarding to http:\/\/127\.0\.0\.1:\d+ needs AWS credentials and the AWS SDK's default chain found none \(.+\): pass --forward-access-key-id and --forward-secret-access-key-file \(forward\.credentials\)/;

describe('forwarding without credentials', () => {
  it('is refused by checkForwardCredentials, and a forwarder says so in status and sends nothing', async () => {
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    expect(await checkForwardCredentials({ endpoint: dynalite.endpoint })).toMatch(MESSAGE);
    const { db } = tempDb(cleanups, 'etb-forward-creds-');
    createReadings(db, 'Readings', 1);
    writeReadings(db, 0, 10);
    const f = startForwarder(db, { endpoint: dynalite.endpoint, pollMs: 20, baseBackoffMs: 5, maxBackoffMs: 20 });
    cleanups.push(() => f.stop());
    await until(() => f.status().refused !== undefined, 20_000, 'the refusal');
    await new Promise((r) => setTimeout(r, 300));
    const s = f.status();
    expect(s.refused).toMatch(MESSAGE);
    expect(s.lastError).toBe(s.refused);
    expect(s).toMatchObject({ forwarded: 0, errors: 0, retries: 0, tables: [] });
  }, 30_000);

  it('makes `edgetable hub --forward-endpoint` exit non-zero with the message before it starts', async () => {
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-hub-creds-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    let out = '';
    let err = '';
    const code = await main(['hub', '--path', dir, '--url', 'mqtt://127.0.0.1:9', '--forward-endpoint', dynalite.endpoint], {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      errIsTty: false,
    });
    expect(code).not.toBe(0);
    expect(err).toMatch(/^error: forwarding to http:\/\/127\.0\.0\.1:\d+ needs AWS credentials/);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(out).toBe('');
  }, 30_000);

  it('is not refused with credentials in the environment, and the forwarder starts', async () => {
    const dynalite = await startDynalite();
    cleanups.push(() => dynalite.stop());
    process.env['AWS_ACCESS_KEY_ID'] = 'edgetable';
    process.env['AWS_SECRET_ACCESS_KEY'] = 'edgetable';
    expect(await checkForwardCredentials({ endpoint: dynalite.endpoint })).toBeUndefined();
    const { db } = tempDb(cleanups, 'etb-forward-creds-');
    createReadings(db, 'Readings', 1);
    writeReadings(db, 0, 10);
    const f = startForwarder(db, { endpoint: dynalite.endpoint, pollMs: 20 });
    cleanups.push(() => f.stop());
    await until(() => f.status().forwarded === 10 && f.status().lagRecords === 0, 30_000, 'forwarded');
    expect(f.status().refused).toBeUndefined();
  }, 30_000);
});
