/**
 * The write path shared by every operation that changes items (DESIGN.md, "Write path"): inside
 * one LMDB write txn, read the old record, then write or delete the base item and its secondary
 * index entries (partition statistics need no write: partition-stats.ts derives them). Base item
 * and index entries commit together or not at all, so an index never disagrees with its table
 * (stronger than DynamoDB's eventually consistent GSIs). Base records name their attributes
 * through the table's dictionary (attribute-names.ts), reconciled with the txn on first use.
 *
 * Usage: `store.write(txn => { const s = new WriteSession(txn); ...; s.finish(); })`. The store may
 * re-run the callback after growing the map, so a session must be created inside it.
 *
 * Tables are resolved before the txn; the first time a session touches a table it checks, inside
 * the txn, that the table's definition is still the stored one (Table.checkCurrent), so a write
 * never lands in a partition another process split or dropped, nor misses an index it added. The
 * check comes before the session's first read of that table, so a caller that touches all its
 * tables before writing has written nothing when CatalogChangedError is thrown.
 *
 * While a partition splits (partition-split.ts), every write to it is mirrored into the child
 * that will own the key, base item and LSI entries alike, so the copy never misses a write.
 */
import { decodeItem } from '../codec/item-value.js';
import type { AttributeValue, Item, KeyValue } from '../model/attribute-value.js';
import { ItemCollectionSizeLimitExceededException } from '../model/errors.js';
import { readCollectionBytes, writeCollectionBytes } from './item-collections.js';
import type { WriteTxn } from '../storage/txn.js';
import type { EncodedKey } from '../codec/item-key.js';
import { indexChange, type IndexChange } from '../indexes/index-changes.js';
import { encodeItemRecord, recordBody, recordItemSize, recordSizeFromHead } from '../codec/item-record.js';
import { updateExpiryEntry } from '../ttl/expiry-index.js';
import { ChangeLogWriter } from '../stream/change-log-writer.js';
import type { Version } from '../stream/item-versions.js';
import type { Partition, Table } from './table.js';
import type { NameDecoder, NameEncoder } from '../codec/attribute-name-codes.js';
import { toWireItem } from '../model/binary.js';
import { itemSize } from '../model/item-size.js';
import { valuesEqual } from '../model/values-equal.js';
import type { ChangeFeed } from '../observe/change-feed.js';
import { LOCAL_ORIGIN, type PendingChange, type WriteOrigin } from '../observe/table-change.js';

/**
 * The stored state of one item before a write: absent, or its size and (when it was decoded) the
 * item. Tables with indexes always decode, because index maintenance needs the old entries.
 */
export type OldItem = { readonly item: Item; readonly size: number } | undefined;
export type OldState = { readonly item?: Item; readonly size: number } | undefined;

/** Write units charged to each secondary index by one base write (spec §5.4). */
export type IndexUnits = { local: Record<string, number>; global: Record<string, number> };

/** What one base write did beyond the item: index units, and the item collection's new size. */
export type WriteEffects = IndexUnits & { collectionBytes?: number };

const NO_EFFECTS: WriteEffects = Object.freeze({ local: Object.freeze({}), global: Object.freeze({}) }) as WriteEffects;
const NO_CHANGES: readonly IndexChange[] = Object.freeze([]);

export class WriteSession {
  /** Change records of streamed or synced tables (stream/change-log-writer.ts), same txn. */
  private readonly changeLog: ChangeLogWriter;
  /** Tables whose definition this session has checked against the txn, with their dictionary in it. */
  private readonly current = new Map<Table, NameEncoder & NameDecoder>();
  /** Changes of observed tables (db.observe), published once the txn commits. */
  private observed: Map<ChangeFeed, PendingChange[]> | undefined;
  private readonly ttl: boolean;
  private readonly origin: WriteOrigin;
  private readonly log: boolean;
  private readonly observing: boolean;
  /** The stored key the last read of this session found for `key` (a partition-id table's placed key), for the write that follows it. */
  private lastStored: { readonly key: EncodedKey; readonly stored: Uint8Array } | undefined;

  /**
   * `ttl`: the deletes of this session are TTL expiries (their change records say so).
   * `origin`: who the writes are for, as observers see it (default: this process, 'local').
   * `log: false`: no change records (a sync agent restoring the hub's version of an item: the hub
   * holds it already, so it must not travel up as a new write). `observe: false`: observers are
   * not told (the caller publishes its own change). `logVersionOnly`: a hub applying device writes
   * logs the received writes that change no item too (stream/change-log-writer.ts).
   */
  constructor(
    readonly txn: WriteTxn,
    options: { readonly ttl?: boolean; readonly origin?: WriteOrigin; readonly log?: boolean; readonly observe?: boolean; readonly logVersionOnly?: boolean } = {},
  ) {
    this.changeLog = new ChangeLogWriter(txn, options.ttl);
    this.changeLog.logVersionOnly = options.logVersionOnly ?? false;
    this.ttl = options.ttl ?? false;
    this.origin = options.origin ?? LOCAL_ORIGIN;
    this.log = options.log ?? true;
    this.observing = options.observe ?? true;
  }

  /**
   * Two-way sync: the version of the write received from another store that the following puts and
   * deletes apply (their change records carry it, stream/change-log-writer.ts); undefined again
   * for local writes.
   */
  set receivedVersion(version: Version | undefined) {
    this.changeLog.origin = version;
  }

  /** The item currently stored under `key`, decoded (a copy the caller owns), or undefined. */
  readItem(table: Table, partition: Partition, key: EncodedKey): OldItem {
    const names = this.use(table);
    const stored = table.storedKeyIn(this.txn, key);
    const record = stored === undefined ? undefined : this.txn.get(partition.db, stored);
    if (!record) return undefined;
    return { item: decodeItem(recordBody(record), 0, names), size: recordItemSize(record) };
  }

  /** The stored state under `key`: decoded only when the table's indexes (or expiry index) need the old item. */
  readState(table: Table, partition: Partition, key: EncodedKey): OldState {
    const names = this.use(table);
    const stored = this.storedKeyIn(table, key);
    if (stored === undefined) return undefined;
    if (!table.needsOldItem) {
      // Only the size: read from the record's first bytes as a number, no copy of the record.
      const head = this.txn.getNumber(partition.db, stored);
      if (head === undefined) return undefined;
      const size = recordSizeFromHead(head);
      if (size !== undefined) return { size };
    }
    const record = this.txn.get(partition.db, stored);
    if (!record) return undefined;
    const size = recordItemSize(record);
    return table.needsOldItem ? { item: decodeItem(recordBody(record), 0, names), size } : { size };
  }

  /**
   * Writes `item` under `key`. Everything that can refuse the write (index keys, the item
   * collection limit, the outbox budget) is checked before the first byte is written, so a refused
   * write leaves nothing behind, even inside a shared group-commit txn.
   */
  putItem(table: Table, partition: Partition, key: EncodedKey, item: Item, size: number, old: OldState): WriteEffects {
    const names = this.use(table);
    const oldItem = table.needsOldItem ? requireOldItem(table, old) : undefined;
    const changes = table.hasIndexes ? planIndexChanges(table, oldItem, item) : NO_CHANGES;
    const collectionBytes = this.checkItemCollection(table, item, size - (old?.size ?? 0), changes);
    if (this.log) this.changeLog.beforePut(table, partition, key, item, size, old);
    if (this.observing && table.feed?.observes(table.name)) this.observePut(table, table.feed, partition, key, item, size, old);
    const child = table.mirrorOf(partition, key.hash);
    const effects = this.applyIndexChanges(table, partition, changes, collectionBytes, child);
    const record = encodeItemRecord(item, size, names);
    const stored = this.lastStored?.key === key ? this.lastStored.stored : table.storedKeyFor(this.txn, key);
    this.txn.put(partition.db, stored, record);
    const ttl = table.def.TimeToLive;
    if (ttl) updateExpiryEntry(this.txn, table.expiryIndex(), ttl.AttributeName, key.bytes, oldItem, item);
    if (child) {
      this.txn.put(child.db, stored, record);
    }
    return effects;
  }

  deleteItem(table: Table, partition: Partition, key: EncodedKey, old: NonNullable<OldState>): WriteEffects {
    this.use(table);
    const oldItem = table.needsOldItem ? requireOldItem(table, old) : old.item;
    const changes = table.hasIndexes ? planIndexChanges(table, oldItem, undefined) : NO_CHANGES;
    const collectionBytes = oldItem ? this.checkItemCollection(table, oldItem, -old.size, changes) : undefined;
    if (this.log) this.changeLog.beforeDelete(table, partition, key, old);
    if (this.observing && table.feed?.observes(table.name)) this.observe(table, table.feed, 'REMOVE', undefined, 0, old.item ?? this.readOld(table, partition, key), old.size);
    const child = table.mirrorOf(partition, key.hash);
    const effects = this.applyIndexChanges(table, partition, changes, collectionBytes, child);
    // The item exists (`old`), so its partition key has an id.
    const stored = this.lastStored?.key === key ? this.lastStored.stored : table.storedKeyIn(this.txn, key)!;
    this.txn.delete(partition.db, stored);
    const ttl = table.def.TimeToLive;
    if (ttl) updateExpiryEntry(this.txn, table.expiryIndex(), ttl.AttributeName, key.bytes, oldItem, undefined);
    if (child) this.txn.delete(child.db, stored);
    return effects;
  }

  /** A received delete where no item is stored: nothing changes but the key's version (logVersionOnly). */
  deleteAbsent(table: Table, partition: Partition, key: EncodedKey, keys: Item): void {
    this.use(table);
    if (this.log) this.changeLog.absentDelete(table, partition, key, keys);
  }

  /**
   * Checks `table` against the txn on its first use in this session (see the header) and returns
   * its name dictionary as this txn sees it (encode and decode base records with it).
   */
  use(table: Table): NameEncoder & NameDecoder {
    const known = this.current.get(table);
    if (known !== undefined) return known;
    table.checkCurrent(this.txn);
    const names = table.names.beginWrite(this.txn);
    this.current.set(table, names);
    return names;
  }

  /** table.storedKeyIn, remembered for the write of `key` that usually follows the read. */
  private storedKeyIn(table: Table, key: EncodedKey): Uint8Array | undefined {
    if (table.ids === undefined) return key.bytes;
    const stored = table.storedKeyIn(this.txn, key);
    if (stored !== undefined) this.lastStored = { key, stored };
    return stored;
  }

  /** Flushes what was accumulated (change records); call once, last, inside the txn. */
  finish(): void {
    this.changeLog.flush();
    const observed = this.observed;
    this.observed = undefined;
    if (observed) this.txn.afterCommit(() => observed.forEach((changes, feed) => feed.publish(changes)));
  }

  private observePut(table: Table, feed: ChangeFeed, partition: Partition, key: EncodedKey, item: Item, size: number, old: OldState): void {
    const oldItem = old === undefined ? undefined : (old.item ?? this.readOld(table, partition, key));
    // Storing an identical item is no change (as in DynamoDB Streams).
    if (oldItem !== undefined && valuesEqual({ M: oldItem }, { M: item })) return;
    this.observe(table, feed, oldItem === undefined ? 'INSERT' : 'MODIFY', item, size, oldItem, old?.size ?? 0);
  }

  private observe(table: Table, feed: ChangeFeed, eventName: PendingChange['eventName'], newItem: Item | undefined, newSize: number, oldItem: Item | undefined, oldSize: number): void {
    const source = (newItem ?? oldItem)!;
    const keys: Record<string, AttributeValue> = {};
    for (const name of table.keyNames) keys[name] = source[name]!;
    const change: PendingChange = {
      eventName,
      tableName: table.name,
      origin: this.origin.origin,
      ...(this.origin.origin === 'sync' ? { deviceId: this.origin.deviceId } : {}),
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(table.now() / 1000),
        Keys: toWireItem(keys),
        ...(newItem ? { NewImage: toWireItem(newItem) } : {}),
        ...(oldItem ? { OldImage: toWireItem(oldItem) } : {}),
        SizeBytes: itemSize(keys) + (newItem ? newSize : 0) + (oldItem ? oldSize : 0),
      },
      ...(this.ttl && eventName === 'REMOVE' ? { userIdentity: { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' } as const } : {}),
    };
    this.observed ??= new Map();
    const list = this.observed.get(feed);
    if (list) list.push(change);
    else this.observed.set(feed, [change]);
  }

  private readOld(table: Table, partition: Partition, key: EncodedKey): Item | undefined {
    const stored = table.storedKeyIn(this.txn, key);
    const record = stored === undefined ? undefined : this.txn.get(partition.db, stored);
    return record ? decodeItem(recordBody(record), 0, this.use(table)) : undefined;
  }

  /**
   * Tables with LSIs keep each item collection's size (base items plus LSI entries of one partition
   * key, spec §4.6) and refuse a write that grows a collection past the table's limit.
   * Returns the collection's size after the write, or undefined for tables without LSIs.
   */
  private checkItemCollection(table: Table, item: Item, baseDelta: number, changes: readonly IndexChange[]): number | undefined {
    if (table.def.LocalSecondaryIndexes.length === 0) return undefined;
    let delta = baseDelta;
    for (const c of changes) {
      if (c.index.kind !== 'local') continue;
      delta += (c.put?.size ?? 0) - (c.remove?.size ?? 0);
    }
    const pk = item[table.keySchema.partitionKey.name] as KeyValue;
    const current = readCollectionBytes(this.txn, table, pk);
    const next = current + delta;
    if (delta > 0 && next > table.itemCollectionLimitBytes) throw new ItemCollectionSizeLimitExceededException('Collection size exceeded.');
    if (delta !== 0) writeCollectionBytes(this.txn, table, pk, next);
    return next;
  }

  /** `child`: the splitting partition's child the write is mirrored into (its LSI entries too). */
  private applyIndexChanges(table: Table, partition: Partition, changes: readonly IndexChange[], collectionBytes: number | undefined, child: Partition | undefined): WriteEffects {
    if (changes.length === 0 && collectionBytes === undefined) return NO_EFFECTS;
    const effects: WriteEffects = { local: {}, global: {}, ...(collectionBytes !== undefined ? { collectionBytes } : {}) };
    for (const change of changes) {
      const name = change.index.IndexName;
      if (change.index.kind === 'local') {
        for (const db of child ? [partition.localIndexes.get(name)!, child.localIndexes.get(name)!] : [partition.localIndexes.get(name)!]) {
          if (change.remove) this.txn.delete(db, change.remove.key);
          if (change.put) this.txn.put(db, change.put.key, encodeItemRecord(change.put.item, change.put.size));
        }
        effects.local[name] = change.units;
      } else {
        const gsi = table.globalIndex(name)!;
        if (change.remove) this.txn.delete(table.globalIndexPartition(gsi, change.remove.hash).db, change.remove.key);
        if (change.put) this.txn.put(table.globalIndexPartition(gsi, change.put.hash).db, change.put.key, encodeItemRecord(change.put.item, change.put.size));
        effects.global[name] = change.units;
      }
    }
    return effects;
  }
}

/** Every index change a write implies; throws (writing nothing) when a new index key is invalid. */
function planIndexChanges(table: Table, oldItem: Item | undefined, newItem: Item | undefined): IndexChange[] {
  const changes: IndexChange[] = [];
  for (const ix of table.def.LocalSecondaryIndexes) {
    const change = indexChange(ix, table.keySchema, oldItem, newItem);
    if (change) changes.push(change);
  }
  for (const ix of table.globalIndexes) {
    const change = indexChange(ix.def, table.keySchema, oldItem, newItem);
    if (change) changes.push(change);
  }
  return changes;
}

function requireOldItem(table: Table, old: OldState): Item | undefined {
  if (old === undefined) return undefined;
  if (old.item === undefined) throw new Error(`internal: the old item of a write to ${table.name} was not decoded, but the table has indexes or TTL`);
  return old.item;
}
