import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockBytesWritten, blockDeviceStatFile } from '../../bench/proc.js';

const disk = blockDeviceStatFile(tmpdir());

describe('the block device counter the write workloads read', () => {
  it.skipIf(disk === undefined)('grows by at least what a flushed write put on the disk under the temp folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'etb-proc-'));
    try {
      const before = blockBytesWritten(disk)!;
      const fd = openSync(join(dir, 'f'), 'w');
      writeSync(fd, Buffer.alloc(4 * 2 ** 20, 7));
      fsyncSync(fd);
      closeSync(fd);
      expect(blockBytesWritten(disk)! - before).toBeGreaterThanOrEqual(4 * 2 ** 20);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!existsSync('/dev/shm'))('is absent for a folder in memory (tmpfs), so the workloads fall back to /proc', () => {
    expect(blockDeviceStatFile('/dev/shm')).toBeUndefined();
    expect(blockBytesWritten(undefined)).toBeUndefined();
  });
});
