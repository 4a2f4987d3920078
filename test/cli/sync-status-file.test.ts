/** The status file a running `sync` keeps in the store folder: as private as the store's own files. */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSyncStatusFile, writeSyncStatusFile, type SyncStatusSnapshot } from '../../src/cli/sync-status-file.js';
import { tempDir } from './run-cli.js';

const snapshot = { format: 1, pid: 1, running: true, deviceId: 'pi-1', url: 'mqtt://127.0.0.1:1883', tables: ['T'], updatedAt: 1 } as unknown as SyncStatusSnapshot;

describe('writeSyncStatusFile', () => {
  it.each([
    [0o700, 0o600],
    [0o750, 0o640],
    [0o770, 0o660],
  ])('in a store folder of mode %o writes a file of mode %o, under umask 022', (folderMode, fileMode) => {
    const store = join(tempDir(), 'db');
    mkdirSync(store);
    chmodSync(store, folderMode);
    const umask = process.umask(0o022);
    try {
      writeSyncStatusFile(store, snapshot);
    } finally {
      process.umask(umask);
    }
    expect(statSync(join(store, 'sync-status.json')).mode & 0o777).toBe(fileMode);
    expect(readSyncStatusFile(store)).toEqual(snapshot);
  });
});
