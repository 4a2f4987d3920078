/**
 * The store-wide write sequence (src/storage/write-sequence.ts): every write txn that changes the
 * store bumps it, in every process; one that changes nothing does not; it is invisible as a
 * database name.
 */
import { describe, expect, it } from 'vitest';
import { WRITE_SEQUENCE_KEY, nextWriteSequence } from '../../src/storage/write-sequence.js';
import type { Database } from '../../src/storage/database.js';
import type { Store } from '../../src/storage/store.js';
import { hex, text, useTempStores } from './temp-store.js';

const temp = useTempStores();

/** The sequence's bytes in hex, read from LMDB's main database (Store's private catalog handle). */
function sequenceOf(store: Store): string | undefined {
  const main = (store as unknown as { catalog: Database }).catalog;
  return store.read((txn) => hex(txn.getCopy(main, WRITE_SEQUENCE_KEY)));
}

describe('write sequence', () => {
  it('counts up as u64 big-endian from absent', () => {
    expect(hex(nextWriteSequence(undefined))).toBe('0000000000000001');
    expect(hex(nextWriteSequence(Buffer.from('00000000000000ff', 'hex')))).toBe('0000000000000100');
    expect(hex(nextWriteSequence(Buffer.from('00ffffffffffffff', 'hex')))).toBe('0100000000000000');
    expect(hex(nextWriteSequence(Buffer.from('0123456789abcdef', 'hex')))).toBe('0123456789abcdf0');
    expect(hex(nextWriteSequence(Buffer.from('ffffffffffffffff', 'hex')))).toBe('0000000000000000');
    expect(hex(nextWriteSequence(Buffer.from('0001', 'hex')))).toBe('0000000000000001'); // not a sequence: as absent
  });

  it('every changing write txn bumps it once (a group once); a txn that changes nothing leaves it', () => {
    const store = temp.open();
    const db = store.database('d');
    const start = BigInt(`0x${sequenceOf(store)}`);
    store.write((txn) => {
      txn.put(db, text('a'), text('1'));
      txn.put(db, text('b'), text('1'));
    });
    expect(BigInt(`0x${sequenceOf(store)}`)).toBe(start + 1n);
    store.writeGroup(() => {
      store.write((txn) => txn.put(db, text('c'), text('1')));
      store.write((txn) => txn.delete(db, text('a')));
    });
    expect(BigInt(`0x${sequenceOf(store)}`)).toBe(start + 2n);
    store.write((txn) => txn.get(db, text('b')));
    store.write((txn) => txn.delete(db, text('absent')));
    expect(BigInt(`0x${sequenceOf(store)}`)).toBe(start + 2n);
  });

  it('is not a database: listDatabases and stats().databases do not see it', () => {
    const store = temp.open();
    store.database('one');
    store.database('two');
    expect(sequenceOf(store)).toBeDefined();
    expect(store.listDatabases()).toEqual(['one', 'two']);
    expect(store.stats().databases).toBe(2);
  });
});
