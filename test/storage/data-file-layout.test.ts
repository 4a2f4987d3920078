import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_LAYOUT, checkDataFileLayout, readDataFileLayout, type DataFileLayout } from '../../src/storage/data-file-layout.js';
import { createEnv } from '../../src/storage/lmdb-binding.js';
import { StorageError, lmdbCode } from '../../src/storage/storage-error.js';
import { Store } from '../../src/storage/store.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const PAGE = 4096;

/**
 * Two meta pages as LMDB lays them out for `wordBytes`-wide size_t (mdb.c, without MDB_VL32):
 * page header mp_pgno (word) mp_pad (2) mp_flags (2) mp_lower (2) mp_upper (2), then MDB_meta:
 * magic (4) version (4) mm_address (word) mm_mapsize (word) and two MDB_db records, whose first
 * (the free database's) md_pad holds the page size.
 */
function craftedDataFile(wordBytes: 4 | 8, littleEndian = true): Buffer {
  const file = Buffer.alloc(2 * PAGE);
  for (const slot of [0, 1]) {
    const page = file.subarray(slot * PAGE);
    const u16 = (value: number, at: number): number => (littleEndian ? page.writeUInt16LE(value, at) : page.writeUInt16BE(value, at));
    const u32 = (value: number, at: number): number => (littleEndian ? page.writeUInt32LE(value, at) : page.writeUInt32BE(value, at));
    u32(slot, 0); // mp_pgno's low (or high) half: 0 or 1 either way
    u16(0x08, wordBytes + 2); // P_META
    const meta = wordBytes + 8;
    u32(0xbeefc0de, meta);
    u32(1, meta + 4);
    u32(PAGE, meta + 8 + 2 * wordBytes); // mm_dbs[FREE_DBI].md_pad
  }
  return file;
}

function folderWith(file: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-layout-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'db'));
  writeFileSync(join(dir, 'db', 'data.mdb'), file);
  return join(dir, 'db');
}

const OTHER_WORD: DataFileLayout = { wordBytes: HOST_LAYOUT.wordBytes === 8 ? 4 : 8, littleEndian: HOST_LAYOUT.littleEndian };

describe('readDataFileLayout: the writer of a data file, from its first page', () => {
  it.each([
    [8, true],
    [4, true],
    [8, false],
    [4, false],
  ] as const)('a %i-byte word, little-endian %s', (wordBytes, littleEndian) => {
    expect(readDataFileLayout(craftedDataFile(wordBytes, littleEndian).subarray(0, 24))).toEqual({ wordBytes, littleEndian });
  });

  it('reads the layout of a store LMDB wrote on this host as this host', () => {
    const store = temp.open();
    store.write((txn) => txn.put(store.database('items'), Uint8Array.of(1), Uint8Array.of(2)));
    const path = store.path;
    store.close();
    expect(() => checkDataFileLayout(path)).not.toThrow();
    expect(HOST_LAYOUT.littleEndian).toBe(true);
  });

  it('is null for bytes that are no meta page (left to the damage checks) and for a short file', () => {
    expect(readDataFileLayout(Buffer.alloc(24, 0x55))).toBeNull();
    expect(readDataFileLayout(craftedDataFile(8).subarray(0, 10))).toBeNull();
    const noMagic = craftedDataFile(4);
    noMagic.writeUInt16LE(0x02, 6); // a leaf page, not a meta page
    expect(readDataFileLayout(noMagic.subarray(0, 24))).toBeNull();
  });
});

describe('a store written on a host of the other word size', () => {
  it("is what LMDB itself refuses only as MDB_INVALID, a message that reads like damage", () => {
    const path = folderWith(craftedDataFile(OTHER_WORD.wordBytes));
    const env = createEnv();
    let caught: unknown;
    try {
      env.open({ path, mapSize: 1 << 20, maxDbs: 1, maxReaders: 8, readOnly: true, noMetaSync: false });
      env.close();
    } catch (err) {
      caught = err;
    }
    expect(lmdbCode(caught)).toBe(-30793); // MDB_INVALID
  });

  it('is refused at open as CORRUPT, saying LMDB files are not portable and how to move the data', () => {
    const path = folderWith(craftedDataFile(OTHER_WORD.wordBytes));
    for (const readOnly of [false, true]) {
      let caught: unknown;
      try {
        Store.open({ path, readOnly, checkOnOpen: 'always' }).close();
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(StorageError);
      expect((caught as StorageError).code).toBe('CORRUPT');
      const message = (caught as Error).message;
      expect(message).toContain(`written by a ${OTHER_WORD.wordBytes * 8}-bit little-endian process and this is a ${HOST_LAYOUT.wordBytes * 8}-bit little-endian one`);
      expect(message).toContain('not portable across word sizes');
      expect(message).toMatch(/edgetable export.*edgetable import.*sync/);
    }
  });

  it('the reverse: a 64-bit store on a 32-bit host, and a big-endian writer, are named too', () => {
    const path64 = folderWith(craftedDataFile(8));
    expect(() => checkDataFileLayout(path64, { wordBytes: 4, littleEndian: true })).toThrow(/64-bit little-endian process and this is a 32-bit little-endian one/);
    const pathBig = folderWith(craftedDataFile(4, false));
    expect(() => checkDataFileLayout(pathBig, { wordBytes: 4, littleEndian: true })).toThrow(/32-bit big-endian process .* byte orders/);
    expect(() => checkDataFileLayout(path64, { wordBytes: 8, littleEndian: true })).not.toThrow();
  });
});
