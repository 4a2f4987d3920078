/** The bridge's status file: beside the store's files, as private as they are. */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusFileWriter, readBridgeStatus, type BridgeStatus } from '../../src/bridge/bridge-status.js';
import { tempDir } from './fixtures/helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('StatusFileWriter', () => {
  it.each([
    [0o700, 0o600],
    [0o770, 0o660],
  ])('in a store folder of mode %o writes bridge-status.json of mode %o, under umask 022', async (folderMode, fileMode) => {
    const dir = tempDir('etb-status-');
    cleanups.push(dir.cleanup);
    const store = join(dir.path, 'db');
    mkdirSync(store);
    chmodSync(store, folderMode);
    const snapshot = { format: 1, pid: process.pid, running: false, table: 'Readings' } as unknown as BridgeStatus;
    const umask = process.umask(0o022);
    try {
      await new StatusFileWriter(join(store, 'bridge-status.json'), 60_000, () => snapshot).close();
    } finally {
      process.umask(umask);
    }
    expect(statSync(join(store, 'bridge-status.json')).mode & 0o777).toBe(fileMode);
    expect(readBridgeStatus(store)).toEqual(snapshot);
  });
});
