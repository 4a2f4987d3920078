/**
 * The write path shared by every operation that changes items (DESIGN.md, "Write path"): inside
 * one LMDB write txn, read the old record, then write or delete the base item and keep the
 * partition statistics in step. Index rows and change records join here, in the same txn, so the
 * table, its indexes and its change log commit together or not at all.
 *
 * Usage: `store.write(txn => { const s = new WriteSession(txn); ...; s.finish(); })`. The store may
 * re-run the callback after growing the map, so a session must be created inside it.
 */
import { decodeItem } from '../codec/item-value.js';
import type { Item } from '../model/attribute-value.js';
import type { WriteTxn } from '../storage/txn.js';
import type { EncodedKey } from '../codec/item-key.js';
import { encodeItemRecord, recordBody, recordItemSize } from './item-record.js';
import { StatsDelta } from './partition-stats.js';
import type { Partition, Table } from './table.js';

/** The stored state of one item before a write. */
export type OldItem = { readonly item: Item; readonly size: number } | undefined;

export class WriteSession {
  private readonly stats = new StatsDelta();

  constructor(readonly txn: WriteTxn) {}

  /** The item currently stored under `key`, decoded (a copy the caller owns), or undefined. */
  readItem(partition: Partition, key: EncodedKey): OldItem {
    const record = this.txn.get(partition.db, key.bytes);
    if (!record) return undefined;
    return { item: decodeItem(recordBody(record)), size: recordItemSize(record) };
  }

  /** Only the stored size of the item under `key` (no decoding), or undefined when absent. */
  readSize(partition: Partition, key: EncodedKey): number | undefined {
    const record = this.txn.get(partition.db, key.bytes);
    return record ? recordItemSize(record) : undefined;
  }

  putItem(table: Table, partition: Partition, key: EncodedKey, item: Item, size: number, oldSize: number | undefined): void {
    this.txn.put(partition.db, key.bytes, encodeItemRecord(item, size));
    this.stats.add(table, partition.range.id, oldSize === undefined ? 1 : 0, size - (oldSize ?? 0));
  }

  deleteItem(table: Table, partition: Partition, key: EncodedKey, oldSize: number): void {
    this.txn.delete(partition.db, key.bytes);
    this.stats.add(table, partition.range.id, -1, -oldSize);
  }

  /** Flushes what was accumulated; call once, last, inside the txn. */
  finish(): void {
    this.stats.flush(this.txn);
  }
}
