/**
 * The redo log's files: what a store that commits LMDB without flushes appends and flushes instead,
 * one record per write txn, so a commit costs one sequential append and one flush (LMDB's durable
 * commit flushes its scattered pages, then its meta page: two). redo-log.ts has the protocol; this
 * module is only the file format, its checks and its torn tails.
 *
 * Two files, `redo-a.log` and `redo-b.log`, are used in turn, one per checkpoint generation, and
 * reused rather than recreated (a third, `redo-c.log`, only when a flush failed in the newer of
 * the two while the older held the last durable checkpoint: redo-log.ts recover()). A file that
 * is written over in place never changes size, so its flush writes its data blocks and no
 * filesystem metadata (an append that grows a file makes fdatasync commit the filesystem's
 * journal as well: ~1.6x the bytes per single write, measured).
 * A file starts with a header naming its generation, then records. Every record is
 *   u32 LE  payload length
 *   u32 LE  CRC-32 of the file's generation (u64 BE) and everything after this field (kind,
 *           write sequence, payload): the records an earlier generation left further on in a
 *           reused file fail it, so a scan ends at the last record of this generation
 *   u8      kind: CHANGES (a txn's puts and deletes), CHECKPOINT (the meta page of the commit whose
 *           pages were flushed; write sequence = that commit's), VOID (the CHANGES record at the
 *           offset in its payload never committed)
 *   u64 BE  write sequence (write-sequence.ts) the txn committed
 *   payload
 * A power cut can leave a file ending in part of a record, or in blocks of zeros the filesystem
 * allocated but never wrote: a scan stops at the first record that does not fit the file or fails
 * its CRC, and everything from there on is a tail that was never acknowledged (an append is only
 * acknowledged after its flush, and appends are sequential, so nothing valid can follow it).
 * A torn record has whole pieces old or zeros; a record that one changed byte (of its length,
 * its CRC or what the CRC covers) would make whole again was damaged on the medium, and may have
 * been acknowledged: CORRUPT, never read as a torn tail (crc-byte-error.ts). Likewise a header:
 * one shorter than a header, or all zeros, is a new file's header that never reached the disk
 * (isTornHeader: nothing in the file); any other header that does not read is CORRUPT.
 */
import { settleCreatedFile } from './file-modes.js';
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { StorageError } from './storage-error.js';
import { isChecksumByteError, locateByteError } from './crc-byte-error.js';

export const RECORD_CHANGES = 1;
export const RECORD_CHECKPOINT = 2;
export const RECORD_VOID = 3;
export type RecordKind = typeof RECORD_CHANGES | typeof RECORD_CHECKPOINT | typeof RECORD_VOID;

const MAGIC = Buffer.from('edgetable redo\n\0', 'latin1'); // 16 bytes
const FILE_FORMAT = 1;
/** magic, u32 format, u64 generation, 16-byte boot id, u32 CRC of the bytes before it. */
export const HEADER_BYTES = MAGIC.length + 4 + 8 + 16 + 4;
const RECORD_HEAD_BYTES = 4 + 4 + 1 + 8;
/** A record larger than this is a torn or foreign length field, not a txn (LMDB's map is smaller). */
const MAX_PAYLOAD_BYTES = 2 ** 31;

/** The log files' names: the first two used in turn, any of them a generation's file after a failure. */
export const LOG_FILES = ['redo-a.log', 'redo-b.log', 'redo-c.log'] as const;

export interface LogHeader {
  readonly generation: bigint;
  /** The boot the file was created in, as 32 hex digits. */
  readonly bootId: string;
}

export interface LogRecord {
  /** Byte offset of the record in its file. */
  readonly offset: number;
  readonly kind: RecordKind;
  readonly sequence: bigint;
  readonly payload: Uint8Array;
}

export interface LogScan {
  readonly header: LogHeader;
  readonly records: LogRecord[];
  /** Bytes from the start that hold the header and whole, intact records; the rest is a torn tail. */
  readonly validBytes: number;
  readonly fileBytes: number;
}

/** The running kernel's boot id as 32 hex digits; EDGETABLE_TEST_BOOT_ID stands in for it in tests that fake a reboot. */
export function currentBootId(): string {
  const raw = process.env.EDGETABLE_TEST_BOOT_ID ?? readFileSync('/proc/sys/kernel/random/boot_id', 'latin1');
  const hex = raw.trim().replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new StorageError('INVALID', `boot id ${JSON.stringify(raw.trim())} is not 16 bytes of hex`);
  return hex;
}

export function encodeHeader(header: LogHeader): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(out, 0);
  let at = MAGIC.length;
  out.writeUInt32LE(FILE_FORMAT, at);
  out.writeBigUInt64BE(header.generation, (at += 4));
  Buffer.from(header.bootId, 'hex').copy(out, (at += 8));
  out.writeUInt32LE(crc32(out.subarray(0, (at += 16))), at);
  return out;
}

/** A header cut short or never written (a new file's, before its flush): the file holds nothing. */
export function isTornHeader(bytes: Uint8Array): boolean {
  return bytes.length < HEADER_BYTES || bytes.subarray(0, HEADER_BYTES).every((b) => b === 0);
}

function decodeHeader(bytes: Uint8Array, name: string): LogHeader {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER_BYTES || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw new StorageError('CORRUPT', `redo log ${name} has no redo log header`);
  const end = HEADER_BYTES - 4;
  if (buf.readUInt32LE(end) !== crc32(buf.subarray(0, end))) throw new StorageError('CORRUPT', `redo log ${name}: its header fails its checksum`);
  const format = buf.readUInt32LE(MAGIC.length);
  if (format !== FILE_FORMAT) throw new StorageError('CORRUPT', `redo log ${name} has file format ${format}; this build reads ${FILE_FORMAT}`);
  return { generation: buf.readBigUInt64BE(MAGIC.length + 4), bootId: buf.subarray(MAGIC.length + 12, end).toString('hex') };
}

export function encodeRecord(generation: bigint, kind: RecordKind, sequence: bigint, payload: Uint8Array): Buffer {
  const out = Buffer.alloc(RECORD_HEAD_BYTES + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out[8] = kind;
  out.writeBigUInt64BE(sequence, 9);
  out.set(payload, RECORD_HEAD_BYTES);
  out.writeUInt32LE(crc32(out.subarray(8), salt(generation)), 4);
  return out;
}

/** A VOID record's payload: u64 BE generation and u64 BE offset of the CHANGES record that never committed. */
export function encodeVoid(generation: bigint, offset: number): Buffer {
  const payload = Buffer.alloc(16);
  payload.writeBigUInt64BE(generation, 0);
  payload.writeBigUInt64BE(BigInt(offset), 8);
  return payload;
}

/** The CRC-32 of the generation's 8 bytes: where a record's checksum starts. */
function salt(generation: bigint): number {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(generation);
  return crc32(bytes);
}

/** The header and the intact records of a log file's bytes; throws CORRUPT for a bad header or a damaged record (see the top). */
export function scanLog(bytes: Uint8Array, name: string): LogScan {
  const header = decodeHeader(bytes, name);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: LogRecord[] = [];
  const start = salt(header.generation);
  let at = HEADER_BYTES;
  while (at + RECORD_HEAD_BYTES <= buf.length) {
    const length = buf.readUInt32LE(at);
    const end = at + RECORD_HEAD_BYTES + length;
    if (length > MAX_PAYLOAD_BYTES || end > buf.length) break;
    if (buf.readUInt32LE(at + 4) !== crc32(buf.subarray(at + 8, end), start)) break;
    const kind = buf[at + 8]!;
    if (kind !== RECORD_CHANGES && kind !== RECORD_CHECKPOINT && kind !== RECORD_VOID) break;
    records.push({ offset: at, kind, sequence: buf.readBigUInt64BE(at + 9), payload: buf.subarray(at + RECORD_HEAD_BYTES, end) });
    at = end;
  }
  let lastChanges = 0n;
  for (const record of records) if (record.kind === RECORD_CHANGES) lastChanges = record.sequence;
  const damage = damageAt(buf, at, header.generation, lastChanges);
  if (damage !== undefined) throw new StorageError('CORRUPT', `redo log ${name}: the record at offset ${at} is damaged (${damage}); the records from there on cannot be read`);
  return { header, records, validBytes: at, fileBytes: buf.length };
}

/**
 * Whether the record where a scan stopped was damaged rather than torn (see the top): one byte
 * of it changed, and the record it would be then is one this generation could have appended
 * (a CHANGES record's sequence no lower than the last one's). A record an earlier generation left
 * (it checks with one of the four generations before) is neither.
 */
function damageAt(buf: Buffer, at: number, generation: bigint, lastChanges: bigint): string | undefined {
  if (at + RECORD_HEAD_BYTES > buf.length || buf.subarray(at, at + RECORD_HEAD_BYTES).every((b) => b === 0)) return undefined;
  const stored = buf.readUInt32LE(at + 4);
  const fits = (length: number): boolean => length <= MAX_PAYLOAD_BYTES && at + RECORD_HEAD_BYTES + length <= buf.length;
  const plausible = (body: Buffer): boolean => {
    const kind = body[0];
    if (kind === RECORD_CHANGES) return body.readBigUInt64BE(1) >= lastChanges;
    return kind === RECORD_CHECKPOINT || kind === RECORD_VOID;
  };
  const length = buf.readUInt32LE(at);
  if (fits(length)) {
    const body = buf.subarray(at + 8, at + RECORD_HEAD_BYTES + length);
    for (let older = 1n; older <= 4n && older < generation; older++) if (crc32(body, salt(generation - older)) === stored) return undefined;
    const syndrome = (crc32(body, salt(generation)) ^ stored) >>> 0;
    if (isChecksumByteError(syndrome) && plausible(body)) return 'a byte of its checksum changed';
    const error = locateByteError(syndrome, body.length);
    if (error !== undefined) {
      const whole = Buffer.from(body);
      whole[error.offset] = whole[error.offset]! ^ error.xor;
      if (plausible(whole)) return `its byte at ${at + 8 + error.offset} changed`;
    }
  }
  // Its length field, which the CRC does not cover: a length one byte away that the CRC holds for.
  const ends: number[] = [];
  for (let shift = 0; shift < 32; shift += 8) {
    for (let xor = 1; xor < 256; xor++) {
      const other = (length ^ (xor << shift)) >>> 0;
      if (fits(other)) ends.push(at + RECORD_HEAD_BYTES + other);
    }
  }
  ends.sort((a, b) => a - b);
  let crc = salt(generation);
  let from = at + 8;
  for (const end of ends) {
    crc = crc32(buf.subarray(from, end), crc);
    from = end;
    if (crc === stored && plausible(buf.subarray(at + 8, end))) return 'a byte of its length changed';
  }
  return undefined;
}

/** One generation's file, open for appending. Appends are synchronous writes; flushes may run on the thread pool. */
export class RedoLogFile {
  readonly path: string;
  readonly generation: bigint;
  private fd: number | null;
  private end: number;
  /** Where the records not known to be durable begin: the end at the start of the last flush that succeeded, or a take-back's offset. */
  private flushedEnd: number;
  private flushing = 0;
  private closeWhenIdle = false;

  private constructor(path: string, generation: bigint, fd: number, end: number) {
    this.path = path;
    this.generation = generation;
    this.fd = fd;
    this.end = end;
    this.flushedEnd = end;
  }

  /**
   * Starts generation `generation` in `dir`'s file `name`, creating it or writing over what an
   * earlier generation left there. The header is written, not flushed: the first flush of a record
   * flushes it too, and until then nothing in the file was acknowledged (a header lost with its
   * records leaves a file whose records fail the old generation's checksum: it reads as holding
   * nothing of this generation). A new file's name is flushed into the folder at once.
   */
  static begin(dir: string, name: string, generation: bigint, bootId: string): RedoLogFile {
    const path = join(dir, name);
    let fd: number;
    let created = false;
    try {
      try {
        fd = openSync(path, 'r+');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        fd = openSync(path, 'wx', 0o600);
        created = true;
        settleCreatedFile(fd, dir);
      }
    } catch (err) {
      throw new StorageError('IO', `open redo log ${path}: ${(err as Error).message}`, { cause: err });
    }
    try {
      const header = encodeHeader({ generation, bootId });
      writeAll(fd, header, 0, path);
      if (created) {
        fdatasyncSync(fd);
        flushFolder(dir);
      }
      return new RedoLogFile(path, generation, fd, header.length);
    } catch (err) {
      closeSync(fd);
      throw err instanceof StorageError ? err : new StorageError('IO', `start redo log ${path}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Opens `dir`'s file `name` to append after its last intact record (what a scan of it found). */
  static resume(dir: string, name: string): RedoLogFile {
    const path = join(dir, name);
    const fd = openSync(path, 'r+');
    try {
      const scan = scanLog(readFileSync(fd), name);
      return new RedoLogFile(path, scan.header.generation, fd, scan.validBytes);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** The file's name in its folder. */
  get name(): string {
    return basename(this.path);
  }

  /** Bytes in the file: header and records appended so far. */
  get size(): number {
    return this.end;
  }

  /** Whether every record appended is known to be durable (a flush that started after it returned). */
  get durable(): boolean {
    return this.flushedEnd >= this.end;
  }

  /** Writes one record after the last; returns its offset. Not durable until a flush that starts after it returns. */
  append(kind: RecordKind, sequence: bigint, payload: Uint8Array): number {
    const fd = this.openFd();
    const record = encodeRecord(this.generation, kind, sequence, payload);
    const offset = this.end;
    writeAll(fd, record, offset, this.path);
    this.end += record.length;
    return offset;
  }

  /** Takes back the records from `offset` on (a record whose commit failed): zeros over its head, so no scan reads past it. */
  takeBack(offset: number): void {
    this.flushedEnd = Math.min(this.flushedEnd, offset); // not durable until its flush succeeds
    writeAll(this.openFd(), Buffer.alloc(RECORD_HEAD_BYTES), offset, this.path);
    this.end = offset;
  }

  /** After a failed flush: takes back, durably, every record not known to be durable (voidUnflushed: none of their writes happened). */
  voidUnflushed(): void {
    if (this.end > this.flushedEnd) this.takeBack(this.flushedEnd);
    this.flushSync();
  }

  flushSync(): void {
    const end = this.end;
    fdatasyncSync(this.openFd());
    this.flushedEnd = Math.max(this.flushedEnd, end);
  }

  /** fdatasync on libuv's thread pool: every record appended before the call is durable when it resolves. */
  flush(): Promise<void> {
    const fd = this.openFd();
    const end = this.end;
    this.flushing += 1;
    return new Promise((resolve, reject) => {
      fdatasync(fd, (err) => {
        this.flushing -= 1;
        if (this.closeWhenIdle && this.flushing === 0) this.closeNow();
        if (err) reject(new StorageError('IO', `flush redo log ${this.path}: ${err.message}`, { cause: err }));
        else {
          this.flushedEnd = Math.max(this.flushedEnd, Math.min(end, this.end)); // a take-back meanwhile moved the end back
          resolve();
        }
      });
    });
  }

  /** Closes the descriptor, after the flushes still running. */
  close(): void {
    if (this.flushing > 0) this.closeWhenIdle = true;
    else this.closeNow();
  }

  private closeNow(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  private openFd(): number {
    if (this.fd === null || this.closeWhenIdle) throw new StorageError('CLOSED', `redo log ${this.path} is closed`);
    return this.fd;
  }
}

function writeAll(fd: number, bytes: Uint8Array, position: number, path: string): void {
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
  } catch (err) {
    throw new StorageError('IO', `write redo log ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** fsync of a folder, so the names created or removed in it survive a power cut. */
export function flushFolder(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * One change of a CHANGES record, by database name ('' is LMDB's main database, which no named
 * database can be called): a put, a delete, or what a txn did to a whole database (its handle
 * opened in a write txn, which may have created it; cleared; dropped).
 */
export type LoggedChange =
  | { readonly op: 'put'; readonly db: string; readonly key: Uint8Array; readonly value: Uint8Array }
  | { readonly op: 'delete'; readonly db: string; readonly key: Uint8Array }
  | { readonly op: 'create' | 'clear' | 'drop'; readonly db: string };

const OPS = { put: 1, delete: 2, create: 3, clear: 4, drop: 5 } as const;
const OP_NAMES = [undefined, 'put', 'delete', 'create', 'clear', 'drop'] as const;

/**
 * Builds a CHANGES payload while the txn runs, copying each key and value once as it is put (the
 * caller's buffers may be scratch that the next put reuses). Per change: u8 op, u16 LE name
 * length, the name (UTF-8), then for put and delete u32 LE key length and key, and for put u32 LE
 * value length and value.
 */
export class ChangeWriter {
  private buf = Buffer.allocUnsafe(1024);
  private at = 0;
  count = 0;

  /** Empties the writer for the next txn (its payload view is then stale). */
  reset(): this {
    this.at = 0;
    this.count = 0;
    return this;
  }

  put(db: Uint8Array, key: Uint8Array, value: Uint8Array): void {
    this.head(OPS.put, db, 8 + key.length + value.length);
    this.bytes(key);
    this.bytes(value);
  }

  delete(db: Uint8Array, key: Uint8Array): void {
    this.head(OPS.delete, db, 4 + key.length);
    this.bytes(key);
  }

  whole(op: 'create' | 'clear' | 'drop', db: Uint8Array): void {
    this.head(OPS[op], db, 0);
  }

  /** The payload so far (a view: valid until the next change). */
  payload(): Uint8Array {
    return this.buf.subarray(0, this.at);
  }

  private head(op: number, db: Uint8Array, rest: number): void {
    const need = this.at + 3 + db.length + rest;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.at);
      this.buf = grown;
    }
    this.buf[this.at] = op;
    this.buf.writeUInt16LE(db.length, this.at + 1);
    this.buf.set(db, this.at + 3);
    this.at += 3 + db.length;
    this.count += 1;
  }

  private bytes(part: Uint8Array): void {
    this.at = this.buf.writeUInt32LE(part.length, this.at);
    this.buf.set(part, this.at);
    this.at += part.length;
  }
}

export function decodeChanges(payload: Uint8Array): LoggedChange[] {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const fail = (): never => {
    throw new StorageError('CORRUPT', 'a redo log CHANGES record does not decode although its checksum holds');
  };
  let at = 0;
  const take = (n: number): Buffer => {
    if (at + n > buf.length) fail();
    const part = buf.subarray(at, at + n);
    at += n;
    return part;
  };
  const sized = (): Uint8Array => Uint8Array.prototype.slice.call(take(take(4).readUInt32LE(0)));
  const out: LoggedChange[] = [];
  while (at < buf.length) {
    const op = OP_NAMES[take(1)[0]!] ?? fail();
    const db = take(take(2).readUInt16LE(0)).toString('utf8');
    if (op === 'put') out.push({ op, db, key: sized(), value: sized() });
    else if (op === 'delete') out.push({ op, db, key: sized() });
    else out.push({ op, db });
  }
  return out;
}
