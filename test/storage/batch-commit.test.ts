/**
 * replayChanges (src/storage/batch-commit.ts): recorded puts and deletes commit as one txn on a
 * libuv worker, all of them or none: each is conditional on the write sequence still being the
 * value the recording saw, and the last op bumps it.
 */
import { describe, expect, it } from 'vitest';
import { replayChanges } from '../../src/storage/batch-commit.js';
import type { Database } from '../../src/storage/database.js';
import type { LmdbEnv } from '../../src/storage/lmdb-binding.js';
import type { Store } from '../../src/storage/store.js';
import { WRITE_SEQUENCE_KEY, nextWriteSequence } from '../../src/storage/write-sequence.js';
import { hex, text, useTempStores } from './temp-store.js';

const temp = useTempStores();

function internals(store: Store): { env: LmdbEnv; main: Database } {
  const s = store as unknown as { env: LmdbEnv; catalog: Database };
  return { env: s.env, main: s.catalog };
}

const sequence = (store: Store): Uint8Array | undefined => store.read((txn) => txn.getCopy(internals(store).main, WRITE_SEQUENCE_KEY));
const contents = (store: Store, db: Database) => store.read((txn) => [...txn.cursor(db)].map((e) => `${Buffer.from(e.key).toString()}=${Buffer.from(e.value).toString()}`));

describe('replayChanges', () => {
  it('applies every change in order and bumps the sequence when it is unchanged', async () => {
    const store = temp.open();
    const db = store.database('d');
    store.write((txn) => txn.put(db, text('gone'), text('x')));
    const before = sequence(store);
    const { env, main } = internals(store);
    const changes = [
      { db, key: text('a'), value: text('1') },
      { db, key: text('a'), value: text('2') },
      { db, key: text('gone'), value: undefined },
    ];
    expect(await replayChanges(env, main.handle!, changes, before)).toBe('committed');
    expect(contents(store, db)).toEqual(['a=2']);
    expect(hex(sequence(store))).toBe(hex(nextWriteSequence(before)));
  });

  it('applies nothing when another commit moved the sequence ("conflict")', async () => {
    const store = temp.open();
    const db = store.database('d');
    const seen = sequence(store);
    store.write((txn) => txn.put(db, text('other'), text('o')));
    const after = sequence(store);
    const { env, main } = internals(store);
    const outcome = await replayChanges(env, main.handle!, [{ db, key: text('a'), value: text('1') }, { db, key: text('other'), value: undefined }], seen);
    expect(outcome).toBe('conflict');
    expect(contents(store, db)).toEqual(['other=o']);
    expect(hex(sequence(store))).toBe(hex(after));
  });

  it('a recording that saw no sequence conflicts once one exists', async () => {
    const store = temp.open();
    const db = store.database('d'); // creating it was a changing write txn
    expect(sequence(store)).toBeDefined();
    const { env, main } = internals(store);
    expect(await replayChanges(env, main.handle!, [{ db, key: text('a'), value: text('1') }], undefined)).toBe('conflict');
    expect(contents(store, db)).toEqual([]);
  });
});
