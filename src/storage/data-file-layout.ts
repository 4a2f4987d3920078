/**
 * Which host wrote a data file: LMDB's files are not portable across word sizes or byte orders.
 * LMDB (without MDB_VL32) sizes page numbers, txn ids and map sizes as size_t, so a store written
 * by a 64-bit process (x86-64, arm64) and one written by a 32-bit process (armhf: Raspberry Pi
 * OS 32-bit) lay out their meta pages differently, and LMDB refuses the other layout only as
 * MDB_INVALID ("File is not an LMDB file"), which reads like damage. This reads page 0 and says
 * what it is, before LMDB or the structural check (which would call it damaged) see it.
 *
 * Page 0 starts with the page header, then MDB_meta, whose first field is the magic 0xBEEFC0DE:
 *   64-bit: mp_pgno (8) mp_pad (2) mp_flags (2) mp_lower (2) mp_upper (2)  magic at byte 16
 *   32-bit: mp_pgno (4) mp_pad (2) mp_flags (2) mp_lower (2) mp_upper (2)  magic at byte 12
 * mp_flags has P_META (0x08). The byte order is the writer's: the magic reads 0xBEEFC0DE in it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { DATA_FILE } from './data-file-check.js';
import { MDB_MAGIC, P_META } from './meta-pages.js';
import { StorageError } from './storage-error.js';

export interface DataFileLayout {
  /** size_t of the process that wrote the file. */
  readonly wordBytes: 4 | 8;
  readonly littleEndian: boolean;
}

/** The layout page 0's first bytes show, or null when they are no LMDB meta page in any layout. */
export function readDataFileLayout(header: Uint8Array): DataFileLayout | null {
  const bytes = Buffer.from(header.buffer, header.byteOffset, header.byteLength);
  for (const wordBytes of [8, 4] as const) {
    const flagsAt = wordBytes + 2;
    const magicAt = wordBytes + 8;
    if (bytes.length < magicAt + 4) continue;
    for (const littleEndian of [true, false]) {
      const magic = littleEndian ? bytes.readUInt32LE(magicAt) : bytes.readUInt32BE(magicAt);
      const flags = littleEndian ? bytes.readUInt16LE(flagsAt) : bytes.readUInt16BE(flagsAt);
      if (magic === MDB_MAGIC && (flags & P_META) !== 0) return { wordBytes, littleEndian };
    }
  }
  return null;
}

/** This process's size_t, as node-lmdb was compiled for it. */
export const HOST_LAYOUT: DataFileLayout = {
  wordBytes: process.arch === 'arm' || process.arch === 'ia32' || process.arch === 'mips' || process.arch === 'mipsel' || process.arch === 'ppc' ? 4 : 8,
  littleEndian: endianness() === 'LE',
};

const describe = (layout: DataFileLayout): string => `${layout.wordBytes * 8}-bit ${layout.littleEndian ? 'little' : 'big'}-endian`;

/**
 * Before LMDB opens `path`: throws StorageError('CORRUPT') saying so when data.mdb was written by
 * a host of another word size or byte order. A missing, short or unrecognised file is left to
 * the checks that follow (a new store, an emptied or damaged file).
 */
export function checkDataFileLayout(path: string, host: DataFileLayout = HOST_LAYOUT): void {
  let fd: number;
  try {
    fd = openSync(join(path, DATA_FILE), 'r');
  } catch {
    return;
  }
  const header = Buffer.alloc(24);
  let read: number;
  try {
    read = readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  const layout = readDataFileLayout(header.subarray(0, read));
  if (layout === null || (layout.wordBytes === host.wordBytes && layout.littleEndian === host.littleEndian)) return;
  throw new StorageError(
    'CORRUPT',
    `open store ${path}: ${DATA_FILE} was written by a ${describe(layout)} process and this is a ${describe(host)} one: ` +
      `LMDB files are not portable across word sizes or byte orders (a store made on 64-bit Raspberry Pi OS does not open on the 32-bit OS, nor the reverse). ` +
      `Open it on a host like the one that wrote it and move the data with \`edgetable export\` / \`edgetable import\`, or let sync fill a new store from the hub`,
  );
}
