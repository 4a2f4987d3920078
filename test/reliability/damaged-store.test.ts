/**
 * A damaged store (issue 9 part 4) is refused at open with StorageError('CORRUPT') and a message
 * that says what is wrong and the way out, never opened into a silent wrong answer (an emptied
 * file used to open as an empty store; a truncated one used to die of SIGBUS at the first read).
 * Damage inside pages is not detectable at open (LMDB has no page checksums): docs/reliability.md.
 */
import { cpSync, openSync, closeSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { seedTable, snapshot, useTempDirs } from './harness/fixture.js';

const temp = useTempDirs('edgetable-damaged-');

function intactStore(): { path: string; size: number } {
  const path = join(temp.dir(), 'db');
  const db = open({ path });
  seedTable(db, 200);
  db.close();
  return { path, size: statSync(join(path, 'data.mdb')).size };
}

function damagedCopy(path: string, damage: (file: string, size: number) => void): string {
  const copy = join(temp.dir(), 'db');
  cpSync(path, copy, { recursive: true });
  damage(join(copy, 'data.mdb'), statSync(join(copy, 'data.mdb')).size);
  return copy;
}

const overwrite = (file: string, at: number, bytes: Buffer): void => {
  const fd = openSync(file, 'r+');
  writeSync(fd, bytes, 0, bytes.length, at);
  closeSync(fd);
};

const cases: [string, (file: string, size: number) => void, RegExp][] = [
  ['emptied (0 bytes)', (f) => truncateSync(f, 0), /data\.mdb is empty \(0 bytes\): the store's contents are lost/],
  ['cut to 100 bytes', (f) => truncateSync(f, 100), /MDB_INVALID: File is not an LMDB file/],
  ['cut after the meta pages', (f) => truncateSync(f, 8192), /data\.mdb is truncated: 8192 bytes, but its last committed page ends at byte \d+/],
  ['cut in half', (f, size) => truncateSync(f, Math.floor(size / 2)), /data\.mdb is truncated: \d+ bytes/],
  ['last page missing', (f, size) => truncateSync(f, size - 4096), /data\.mdb is truncated/],
  ['both meta pages overwritten', (f) => overwrite(f, 0, Buffer.alloc(8192, 0xab)), /MDB_INVALID: File is not an LMDB file/],
];

describe('a damaged data file is refused at open', () => {
  it.each(cases)('%s: StorageError CORRUPT with a clear message, read-only open refused too', (_, damage, message) => {
    const { path } = intactStore();
    const copy = damagedCopy(path, damage);
    for (const readOnly of [false, true]) {
      let thrown: unknown;
      try {
        open({ path: copy, readOnly }).close();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ name: 'StorageError', code: 'CORRUPT' });
      expect((thrown as Error).message).toMatch(message);
    }
  });

  it('the intact original still opens and answers, read-only too (the way out: a good copy)', () => {
    const { path } = intactStore();
    const db = open({ path, readOnly: true });
    const s = snapshot(db);
    expect(s.ItemCount).toBe(200);
    expect(s.indexDifferences).toBe(0);
    db.close();
  });
});
