/** The store's state a checkpoint records: its write sequence and its last commit's meta page, and the append of both. */
import type { LmdbDbi, LmdbEnv, LmdbTxn } from './lmdb-binding.js';
import { newestMeta, readMetaPages, type MetaPage } from './meta-pages.js';
import { RECORD_CHECKPOINT, RedoLogFile } from './redo-log-file.js';
import { StorageError } from './storage-error.js';
import { WRITE_SEQUENCE_KEY } from './write-sequence.js';

/** The sequence value as the 8 bytes of the write-sequence record, or 0 when absent. */
export function sequenceOf(value: Uint8Array | undefined): bigint {
  return value !== undefined && value.length === 8 ? Buffer.from(value.buffer, value.byteOffset, 8).readBigUInt64BE(0) : 0n;
}

export function readSequence(txn: LmdbTxn, main: LmdbDbi): bigint {
  return sequenceOf(txn.getBinary(main, WRITE_SEQUENCE_KEY) ?? undefined);
}

export /** Appends to `dir`'s log file `name` a checkpoint of data.mdb as it is (flushed before), and flushes it. */
function appendCheckpointTo(dir: string, name: string, env: LmdbEnv, main: LmdbDbi, dataFd: number): void {
  const reader = env.beginTxn({ readOnly: true });
  let sequence: bigint;
  try {
    sequence = readSequence(reader, main);
  } finally {
    reader.abort();
  }
  const file = RedoLogFile.resume(dir, name);
  try {
    file.append(RECORD_CHECKPOINT, sequence, checkpointMeta(dataFd, env).bytes);
    file.flushSync();
  } finally {
    file.close();
  }
}

export /** The meta page of the store's last commit, read from data.mdb (LMDB wrote it into the page cache at commit). */
function checkpointMeta(fd: number, env: LmdbEnv): MetaPage {
  const meta = newestMeta(readMetaPages(fd));
  const last = BigInt(env.info().lastTxnId);
  if (meta.txnid !== last) throw new StorageError('IO', `data.mdb's newest meta page is txn ${meta.txnid}, LMDB's last commit is ${last}`);
  return meta;
}
