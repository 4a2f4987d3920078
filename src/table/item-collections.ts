/**
 * Item collection sizes of tables with local secondary indexes (spec §4.6): the bytes of every
 * base item and LSI entry sharing one partition key, kept in the table's meta database and updated
 * in the write txn that changes them.
 *
 *   key   := 'c' hash:u32be pkPart        (the partition prefix of codec/item-key.ts)
 *   value := bytes:f64be
 */
import { encodePartitionPrefix } from '../codec/item-key.js';
import type { KeyValue } from '../model/attribute-value.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import type { Table } from './table.js';

const TAG = 0x63;

function collectionKey(pk: KeyValue): Uint8Array {
  const prefix = encodePartitionPrefix(pk).bytes;
  const key = new Uint8Array(1 + prefix.length);
  key[0] = TAG;
  key.set(prefix, 1);
  return key;
}

export function readCollectionBytes(txn: ReadTxn, table: Table, pk: KeyValue): number {
  const raw = txn.get(table.meta, collectionKey(pk));
  return raw ? new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getFloat64(0) : 0;
}

export function writeCollectionBytes(txn: WriteTxn, table: Table, pk: KeyValue, bytes: number): void {
  if (bytes <= 0) {
    txn.delete(table.meta, collectionKey(pk));
    return;
  }
  const value = new Uint8Array(8);
  new DataView(value.buffer).setFloat64(0, bytes);
  txn.put(table.meta, collectionKey(pk), value);
}

/** Removes every collection size of `table` (a rebuild, rebuild-indexes.ts, counts them again); returns how many went. */
export function clearCollectionBytes(txn: WriteTxn, table: Table): number {
  const start = new Uint8Array([TAG]);
  const end = new Uint8Array([TAG + 1]);
  // Copies: a cursor's key is a view of the map, gone after a delete.
  const keys = [...txn.cursor(table.meta, { start, end })].map(({ key }) => Uint8Array.prototype.slice.call(key));
  for (const key of keys) txn.delete(table.meta, key);
  return keys.length;
}

/**
 * DynamoDB's ItemCollectionMetrics: the collection key and a size estimate in whole-GB buckets
 * (a small collection reports [0.0, 1.0]).
 */
export function itemCollectionMetrics<V>(pkName: string, pk: V, bytes: number): { ItemCollectionKey: { [name: string]: V }; SizeEstimateRangeGB: [number, number] } {
  const gb = bytes / (1024 * 1024 * 1024);
  const low = Math.floor(gb);
  return { ItemCollectionKey: { [pkName]: pk }, SizeEstimateRangeGB: [low, low + 1] };
}
