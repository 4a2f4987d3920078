/**
 * Replays the changes a write txn recorded (txn.ts RecordedChange) as ONE LMDB write txn on a
 * libuv worker thread (node-lmdb's env.batchWrite, see lmdb-binding.ts): begin, the puts and
 * deletes, commit and its flush all run off the main thread.
 *
 * Atomicity against every other writer (this process's synchronous write txns, other processes
 * on the folder): the changes were computed on a snapshot whose write sequence
 * (write-sequence.ts) was `sequence`. Every op of the batch is conditional on the sequence still
 * being exactly that value, and the last op bumps it. The worker holds LMDB's writer lock from
 * begin to commit, and nothing but that last op changes the sequence inside the batch, so every
 * condition reads the same value: either all ops apply (the store was still at `sequence`, so the
 * replay yields exactly the computed state) or none does (another commit came in between:
 * 'conflict', the empty txn commits nothing and the caller recomputes on the new state).
 *
 * Contract of replayChanges:
 * - Every change's database handle must be open (Database.handle) and must stay open until the
 *   promise settles; the key and value buffers are read by the worker until then.
 * - Resolves 'committed' once LMDB's commit returned: the data pages are flushed and the meta page
 *   written, through LMDB's O_DSYNC descriptor (so the changes are durable) unless the env was
 *   opened with MDB_NOMETASYNC ('relaxed' stores, store.ts), where the meta page still needs a
 *   flush. 'conflict': nothing was written. 'map-full' / 'map-resized': LMDB aborted the
 *   txn (nothing written); grow or adopt the map and recompute. Any other failure rejects with a
 *   StorageError('IO'); nothing was written.
 */
import type { Database } from './database.js';
import type { LmdbBatchOp, LmdbDbi, LmdbEnv } from './lmdb-binding.js';
import { StorageError } from './storage-error.js';
import type { RecordedChange } from './txn.js';
import { WRITE_SEQUENCE_KEY, nextWriteSequence } from './write-sequence.js';

export type ReplayOutcome = 'committed' | 'conflict' | 'map-full' | 'map-resized';

/** Result codes of env.batchWrite per op (node-lmdb's env.cpp). */
const APPLIED = 0;
const CONDITION_FAILED = 1;

export function replayChanges(env: LmdbEnv, main: LmdbDbi, changes: readonly RecordedChange[], sequence: Uint8Array | undefined): Promise<ReplayOutcome> {
  const condition = { ifDB: main, ifKey: WRITE_SEQUENCE_KEY, ifValue: sequence ?? null, ifExactMatch: true };
  const ops: LmdbBatchOp[] = changes.map((c) => (c.value === undefined ? { db: handleOf(c.db), key: c.key, ...condition } : { db: handleOf(c.db), key: c.key, value: c.value, ...condition }));
  ops.push({ db: main, key: WRITE_SEQUENCE_KEY, value: nextWriteSequence(sequence), ...condition });
  return new Promise((resolve, reject) => {
    env.batchWrite(ops, {}, (err, results) => {
      if (err) {
        if (err.message.startsWith('MDB_MAP_FULL')) return resolve('map-full');
        if (err.message.startsWith('MDB_MAP_RESIZED')) return resolve('map-resized');
        return reject(new StorageError('IO', `asynchronous commit failed: ${err.message}`, { cause: err }));
      }
      const codes = results ?? [];
      const skipped = codes.filter((r) => r === CONDITION_FAILED).length;
      if (codes.length === ops.length && skipped === ops.length) return resolve('conflict');
      if (codes.length === ops.length && codes.every((r) => r === APPLIED)) return resolve('committed');
      // Cannot happen while the write sequence holds (see the header); if it does, say so loudly.
      reject(new StorageError('CORRUPT', `asynchronous commit applied only part of its changes (results ${JSON.stringify(codes)})`));
    });
  });
}

function handleOf(db: Database): LmdbDbi {
  if (db.handle === null) throw new StorageError('INVALID', `database ${JSON.stringify(db.name)} has no open handle for an asynchronous commit`);
  return db.handle;
}
