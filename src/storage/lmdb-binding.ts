/**
 * The one import of node-lmdb in the code base, with the subset of its API this layer uses typed
 * precisely (the package's own index.d.ts misses nulls and the `txn` options). node-lmdb is
 * CommonJS whose exports the ESM loader cannot see by name, so it is loaded with require.
 *
 * Facts about node-lmdb 0.10.1 the rest of storage/ relies on (read from its C++ source):
 * - A Cursor opened with { keyIsUint32: true } on a database of byte keys still seeks with byte
 *   keys (goToRange infers the type from its argument), but returns each key as the number read
 *   from its first 4 bytes (native order) instead of a copied Buffer: stepping without allocating.
 *   The 4 bytes are read from the map whatever the key's length, so only for keys of 4+ bytes.
 * - txn.getNumber returns a value's first 8 bytes as a native-order float64, without a Buffer.
 * - txn.getString and cursor.getCurrentString copy a value into a JS string (no Buffer), reading
 *   its 16-bit units in native order, and throw (an Error without `code`) unless the value's
 *   length is even... in fact unless the unit at floor(length / 2) - 1 is zero, which for an odd
 *   length drops its last byte: only for values of even length (text-values.ts).
 * - Every Env is opened with MDB_NOTLS, so a reset read txn keeps its reader slot and several
 *   read txns may coexist on the main thread.
 * - Keys and values may be any Uint8Array (Buffer::HasInstance accepts every ArrayBufferView).
 *   Cursor keys come back as copied Buffers; *Unsafe values are Buffers over the memory map.
 * - Errors carry `code`: the LMDB return code (negative) or an errno (positive).
 * - A Cursor must be closed before its txn ends: a write txn frees its cursors at commit/abort and
 *   the Cursor's finalizer would then touch freed memory.
 * - env.resize() refuses while any Txn object of this Env is alive, reset ones included.
 * - Env.open of a path already open in this process shares the MDB_env, but each Env object tracks
 *   its own write txn; two writers on one MDB_env in one thread deadlock, so Store refuses that.
 * - env.batchWrite(ops, options, cb) runs mdb_txn_begin, the ops and mdb_txn_commit (with the
 *   env's flushes) on ONE libuv worker thread, holding LMDB's writer lock from begin to commit; a
 *   write txn begun on the main thread meanwhile blocks until that commit ends. An op with
 *   ifValue first reads ifDB/ifKey inside that txn (null: the key must be absent; ifExactMatch:
 *   byte-equal, else a prefix match) and is skipped, result 1, when it differs; the txn still
 *   commits. Result 0: done; 2: a delete found no key; 3: MDB_BAD_VALSIZE (skipped, txn commits).
 *   Any other failure aborts the txn and cb gets an Error whose message is mdb_strerror's text
 *   ("MDB_MAP_FULL: ...", "MDB_MAP_RESIZED: ...") and no code. Keys and values are read from the
 *   caller's buffers by the worker: they must not change until cb runs.
 */
import { createRequire } from 'node:module';

export interface LmdbStat {
  pageSize: number;
  treeDepth: number;
  treeBranchPageCount: number;
  treeLeafPageCount: number;
  entryCount: number;
  overflowPages: number;
}

export interface LmdbInfo {
  mapSize: number;
  lastPageNumber: number;
  lastTxnId: number;
  maxReaders: number;
  numReaders: number;
}

export interface LmdbEnvOptions {
  path: string;
  mapSize: number;
  maxDbs: number;
  maxReaders: number;
  readOnly: boolean;
  noMetaSync: boolean;
  /** MDB_NOSYNC: commits write their pages and meta page without flushing either (redo-log checkpoints flush). */
  noSync?: boolean;
}

export interface LmdbDbi {
  close(): void;
  drop(options?: { txn?: LmdbTxn; justFreePages?: boolean }): void;
  stat(txn: LmdbTxn): LmdbStat;
}

export interface LmdbTxn {
  getBinary(dbi: LmdbDbi, key: Uint8Array): Buffer | null;
  getBinaryUnsafe(dbi: LmdbDbi, key: Uint8Array): Buffer | null;
  getNumber(dbi: LmdbDbi, key: Uint8Array): number | null;
  /** The value read as UTF-16 without its last (zero) unit; throws unless the value is a text value (text-values.ts). */
  getString(dbi: LmdbDbi, key: Uint8Array): string | null;
  putBinary(dbi: LmdbDbi, key: Uint8Array, value: Uint8Array): void;
  del(dbi: LmdbDbi, key: Uint8Array): void;
  commit(): void;
  abort(): void;
  reset(): void;
  renew(): void;
}

/**
 * K: what the cursor's steps return for a key and what goToRange seeks to: a Buffer (copied), or
 * for a head cursor a number, the key's first 4 bytes in native order (seeking to a 4-byte key).
 */
export interface LmdbCursor<K extends Buffer | number = Buffer> {
  goToFirst(): K | null;
  goToLast(): K | null;
  goToNext(): K | null;
  goToPrev(): K | null;
  goToRange(key: K extends number ? number : Uint8Array): K | null;
  getCurrentBinaryUnsafe(): Buffer | null;
  getCurrentBinary(): Buffer | null;
  /** As txn.getString, for the value under the cursor. */
  getCurrentString(): string | null;
  close(): void;
}

/** One op of env.batchWrite: a put when `value` is set, else a delete; conditional with ifValue. */
export interface LmdbBatchOp {
  db: LmdbDbi;
  key: Uint8Array;
  value?: Uint8Array;
  ifDB?: LmdbDbi;
  ifKey?: Uint8Array;
  ifValue?: Uint8Array | null;
  ifExactMatch?: boolean;
}

export interface LmdbEnv {
  batchWrite(ops: LmdbBatchOp[], options: Record<string, never>, callback: (err: Error | null, results?: number[]) => void): void;
  open(options: LmdbEnvOptions): void;
  openDbi(options: { name: string | null; create: boolean; keyIsBuffer: true; txn?: LmdbTxn }): LmdbDbi;
  beginTxn(options?: { readOnly: boolean }): LmdbTxn;
  detachBuffer(buffer: ArrayBufferLike): void;
  resize(bytes: number): void;
  info(): LmdbInfo;
  stat(): LmdbStat;
  sync(callback: (err: Error | null) => void): void;
  /**
   * mdb_env_copy2 on a libuv worker: writes `<dir>/data.mdb` (dir must exist, data.mdb must not)
   * from one read snapshot; `compact` (MDB_CP_COMPACT) omits free pages. On failure the callback
   * gets Error('Error on copy') and the LMDB code goes to stderr only.
   */
  copy(dir: string, compact: boolean, callback: (err: Error | null) => void): void;
  close(): void;
}

interface Binding {
  Env: new () => LmdbEnv;
  Cursor: new (txn: LmdbTxn, dbi: LmdbDbi, options: { keyIsBuffer: true } | { keyIsUint32: true }) => LmdbCursor<Buffer> & LmdbCursor<number>;
}

/** node-lmdb is required: without it edgetable cannot start, so say why and what to do. */
function loadBinding(): Binding {
  try {
    return createRequire(import.meta.url)('node-lmdb') as Binding;
  } catch (e) {
    throw new Error(
      `edgetable needs node-lmdb, a native module compiled on install, and it does not load on ${process.platform}-${process.arch} with Node ${process.versions.node}: ` +
        `${e instanceof Error ? e.message : String(e)}. Install the build tools (Debian/Raspberry Pi OS: sudo apt install build-essential python3) and run \`npm rebuild node-lmdb\`.`,
      { cause: e },
    );
  }
}

const binding = loadBinding();

export function createEnv(): LmdbEnv {
  return new binding.Env();
}

export function openCursor(txn: LmdbTxn, dbi: LmdbDbi): LmdbCursor {
  return new binding.Cursor(txn, dbi, { keyIsBuffer: true });
}

/** A cursor whose steps return each key's first 4 bytes as a number (see the facts above). */
export function openHeadCursor(txn: LmdbTxn, dbi: LmdbDbi): LmdbCursor<number> {
  return new binding.Cursor(txn, dbi, { keyIsUint32: true });
}
