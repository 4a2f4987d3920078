/**
 * Appends change records (change-record.ts) to a table's shards inside the write txn of the change
 * itself, so the log and the table can never disagree. One writer per WriteSession; the session
 * calls `beforePut`/`beforeDelete` before it touches the base item and `flush` last, before commit.
 *
 * A table is logged when its StreamSpecification is enabled or when sync is configured for it
 * (shard-state.ts sync settings). Stored images: the view type's, plus the new image when synced
 * (the hub needs whole items): KEYS_ONLY/NEW_IMAGE -> new; OLD_IMAGE/NEW_AND_OLD_IMAGES -> new and
 * old; a synced table with `baseImages` (a version conflict rule) -> new and old. A put that stores an item identical to the one it replaces writes no record.
 *
 * Outbox budget (synced tables with outboxBudgetBytes > 0), checked per shard in `flush`:
 * - 'reject': the txn fails with OutboxFullError; nothing of the write is applied.
 * - 'drop-oldest': the oldest unacknowledged records written by earlier txns are deleted until the
 *   shard fits, and one gap record replaces the last of them (merging an older gap it swallows).
 *   Records of the current txn are never dropped, so one txn may overshoot the budget.
 * Two-way sync (SyncSettings.versions): each record's write also stores the item's version record
 * (item-versions.ts). A write received from another store is applied with `origin` set to the
 * version it carries: the record keeps it (so the sync agent does not send it back up, and a hub
 * does not send it back to the device it came from) and the version record takes it. A local
 * write's version is (its HLC, this store's writer id, incarnation).
 *
 * The writer is pure apart from the txn, as store.write requires (it may run more than once).
 */
import { decodeItem } from '../codec/item-value.js';
import type { EncodedKey } from '../codec/item-key.js';
import type { AttributeValue, Item } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { valuesEqual } from '../model/values-equal.js';
import type { WriteTxn } from '../storage/txn.js';
import { recordBody } from '../codec/item-record.js';
import type { Partition, Table } from '../table/table.js';
import { decodeStreamRecord, encodeChangeRecord, encodeGapRecord, type ChangeEventName } from './change-record.js';
import { maxHlc, readStoreClock, tickHlc, writeStoreClock, type Hlc } from './hlc.js';
import { readVersion, writeVersion, type Version } from './item-versions.js';
import { OutboxFullError } from './outbox-full-error.js';
import { decodeSequenceKey, encodeSequenceKey } from './sequence-key.js';
import { shardDatabase, storeSyncDatabase } from './shard-database.js';
import { listShardIds, newShardHeader, readShardHeader, readSyncSettings, writeShardHeader, type ShardHeader, type SyncSettings } from './shard-state.js';

type LogMode = { readonly old: boolean; readonly sync: SyncSettings | undefined };

type OpenShard = { readonly table: Table; readonly shard: number; readonly header: ShardHeader; readonly firstSeqThisTxn: number };

/** The state of the item before the write, as WriteSession knows it. */
export type PriorState = { readonly item?: Item; readonly size: number } | undefined;

export class ChangeLogWriter {
  private readonly modes = new Map<Table, LogMode | null>();
  private readonly shards = new Map<string, OpenShard>();
  /** The store clock (hlc.ts) as this txn moved it, and the table it was reached through. */
  private clock: { table: Table; hlc: Hlc } | undefined;
  /** False for the snapshot that enabling sync logs: its records never count against the budget. */
  enforceBudget = true;
  /**
   * True for the snapshot that enabling sync logs: an item that already has a version record keeps
   * it, and its record carries it as origin (it is a copy of that write, not a new one).
   */
  snapshot = false;
  /** The version of the received write the next puts and deletes apply; undefined: local writes. */
  origin: Version | undefined;
  /**
   * A hub's: a received write that changes no item (identical put, delete of an absent key) is
   * still logged, as a version-only record, because it moves the key's version (change-record.ts).
   */
  logVersionOnly = false;

  constructor(
    private readonly txn: WriteTxn,
    private readonly ttl = false,
    private readonly now?: () => number,
  ) {}

  /** The writer's wall clock when given, else the table's (the engine's clock). */
  private wallClock(table: Table): number {
    return (this.now ?? table.now)();
  }

  beforePut(table: Table, partition: Partition, key: EncodedKey, item: Item, size: number, old: PriorState): void {
    const mode = this.modeOf(table);
    if (!mode) return;
    const oldItem = old === undefined ? undefined : (old.item ?? this.readOld(table, partition, key));
    if (oldItem !== undefined && sameItem(oldItem, item)) {
      if (this.logVersionOnly && this.origin) this.append(table, partition, key, 'MODIFY', item, undefined, size, 0, mode, true);
      return;
    }
    this.append(table, partition, key, oldItem === undefined ? 'INSERT' : 'MODIFY', item, oldItem, size, old?.size ?? 0, mode);
  }

  /** A received delete of a key that holds no item: logged version-only when `logVersionOnly` (see there). */
  absentDelete(table: Table, partition: Partition, key: EncodedKey, keys: Item): void {
    const mode = this.modeOf(table);
    if (!mode || !this.logVersionOnly || !this.origin) return;
    this.append(table, partition, key, 'REMOVE', undefined, keys, 0, 0, mode, true);
  }

  beforeDelete(table: Table, partition: Partition, key: EncodedKey, old: NonNullable<PriorState>): void {
    const mode = this.modeOf(table);
    if (!mode) return;
    const oldItem = old.item ?? this.readOld(table, partition, key);
    this.append(table, partition, key, 'REMOVE', undefined, oldItem, 0, old.size, mode);
  }

  /**
   * Enforces the outbox budget (unless `enforceBudget` is false, as for the snapshot that enabling
   * sync logs) and writes the shard headers; call once, last, inside the txn.
   */
  flush(enforceBudget = this.enforceBudget): void {
    for (const s of this.shards.values()) {
      const settings = this.modeOf(s.table)?.sync;
      if (enforceBudget && settings && settings.outboxBudgetBytes > 0 && s.header.pendingBytes > settings.outboxBudgetBytes) {
        if (settings.whenFull === 'reject') throw new OutboxFullError(s.table.name, s.shard, s.header.pendingBytes, settings.outboxBudgetBytes);
        this.dropOldest(s, settings.outboxBudgetBytes);
      }
      writeShardHeader(this.txn, s.table.meta, s.shard, s.header);
    }
    this.shards.clear();
    if (this.clock) writeStoreClock(this.txn, storeSyncDatabase(this.clock.table), this.clock.hlc);
    this.clock = undefined;
  }

  private modeOf(table: Table): LogMode | null {
    let mode = this.modes.get(table);
    if (mode === undefined) {
      const stream = table.def.StreamSpecification;
      const view = stream?.StreamEnabled ? stream.StreamViewType : undefined;
      const sync = readSyncSettings(this.txn, table.meta);
      mode = view === undefined && sync === undefined ? null : { old: view === 'OLD_IMAGE' || view === 'NEW_AND_OLD_IMAGES' || sync?.baseImages === true, sync };
      this.modes.set(table, mode);
    }
    return mode;
  }

  private readOld(table: Table, partition: Partition, key: EncodedKey): Item | undefined {
    const stored = table.storedKeyIn(this.txn, key);
    const record = stored === undefined ? undefined : this.txn.get(partition.db, stored);
    return record ? decodeItem(recordBody(record), 0, table.names) : undefined;
  }

  private append(
    table: Table,
    partition: Partition,
    key: EncodedKey,
    eventName: ChangeEventName,
    newItem: Item | undefined,
    oldItem: Item | undefined,
    newSize: number,
    oldSize: number,
    mode: LogMode,
    versionOnly = false,
  ): void {
    const s = this.open(table, partition);
    const source = newItem ?? oldItem!;
    const keys: Record<string, AttributeValue> = {};
    for (const name of table.keyNames) keys[name] = source[name]!;
    // A version-only delete passes the keys as its "old item" only to name them.
    const storeOld = mode.old && oldItem !== undefined && !versionOnly;
    const sizeBytes = itemSize(keys) + (newItem ? newSize : 0) + (storeOld ? oldSize : 0);
    const timeMs = this.wallClock(table);
    s.header.hlc = this.tick(s, timeMs);
    const origin = this.version(table, key, s.header.hlc, mode);
    const bytes = encodeChangeRecord({
      eventName,
      keys,
      ...(newItem ? { newImage: newItem } : {}),
      ...(storeOld ? { oldImage: oldItem } : {}),
      timeMs,
      hlc: s.header.hlc,
      sizeBytes,
      ttl: this.ttl && eventName === 'REMOVE',
      ...(origin ? { origin } : {}),
      ...(versionOnly ? { versionOnly: true as const } : {}),
    });
    // A 'reject' budget refuses the write before anything of it is stored, so a refused write
    // leaves nothing behind even inside a shared group-commit txn.
    const sync = mode.sync;
    if (this.enforceBudget && sync && sync.whenFull === 'reject' && sync.outboxBudgetBytes > 0 && s.header.pendingBytes + bytes.length > sync.outboxBudgetBytes) {
      throw new OutboxFullError(table.name, s.shard, s.header.pendingBytes + bytes.length, sync.outboxBudgetBytes);
    }
    this.txn.put(shardDatabase(table, s.shard), encodeSequenceKey(s.header.nextSeq), bytes);
    s.header.nextSeq += 1;
    s.header.pendingBytes += bytes.length;
  }

  /** Writes the item's version record (versioned tables); returns the origin the record carries. */
  private version(table: Table, key: EncodedKey, hlc: Hlc, mode: LogMode): Version | undefined {
    const versions = mode.sync?.versions;
    if (!versions) return this.origin;
    const db = storeSyncDatabase(table);
    if (this.snapshot) {
      const kept = readVersion(this.txn, db, table.name, key.bytes);
      // A copy of another store's write keeps its origin; a copy of this store's own is local.
      if (kept) return kept.device === versions.writer && kept.incarnation === versions.incarnation ? undefined : kept;
    }
    writeVersion(this.txn, db, table.name, key.bytes, this.origin ?? { hlc, device: versions.writer, incarnation: versions.incarnation });
    return this.origin;
  }

  /** The next timestamp of the store clock (read once per txn, written back by flush). */
  private tick(s: OpenShard, timeMs: number): Hlc {
    if (!this.clock) this.clock = { table: s.table, hlc: readStoreClock(this.txn, storeSyncDatabase(s.table)) ?? this.legacyClock(s.table) };
    // The shard header's clock is never ahead of the store clock, except in a store written before
    // the store clock existed; max() keeps each shard monotonic either way.
    this.clock.hlc = tickHlc(maxHlc(this.clock.hlc, s.header.hlc), timeMs);
    return this.clock.hlc;
  }

  /** A store without a store clock (written before it existed): start from its newest shard clock. */
  private legacyClock(table: Table): Hlc {
    let hlc: Hlc = { ms: 0, counter: 0 };
    for (const shard of listShardIds(this.txn, table.meta)) hlc = maxHlc(hlc, readShardHeader(this.txn, table.meta, shard)!.hlc);
    return hlc;
  }

  private open(table: Table, partition: Partition): OpenShard {
    const shard = partition.range.id;
    const id = `${table.name}\u0000${shard}`;
    let s = this.shards.get(id);
    if (!s) {
      const header = readShardHeader(this.txn, table.meta, shard) ?? newShardHeader(partition.range.parent);
      s = { table, shard, header, firstSeqThisTxn: header.nextSeq };
      this.shards.set(id, s);
    }
    return s;
  }

  private dropOldest(s: OpenShard, budget: number): void {
    const db = shardDatabase(s.table, s.shard);
    let first = 0;
    let last = 0;
    let records = 0;
    let bytes = 0;
    const victims: { seq: number; length: number }[] = [];
    let pending = s.header.pendingBytes;
    for (const { key, value } of this.txn.cursor(db, { start: encodeSequenceKey(s.header.ackedSeq + 1), end: encodeSequenceKey(s.firstSeqThisTxn) })) {
      const seq = decodeSequenceKey(key);
      const record = decodeStreamRecord(value);
      if (first === 0) first = record.kind === 'gap' ? record.firstSeq : seq;
      records += record.kind === 'gap' ? record.records : 1;
      bytes += record.kind === 'gap' ? record.bytes : value.length;
      last = seq;
      victims.push({ seq, length: value.length });
      pending -= value.length;
      if (pending + 64 <= budget) break; // 64: room for the gap record itself
    }
    if (victims.length === 0) return;
    for (const v of victims) this.txn.delete(db, encodeSequenceKey(v.seq));
    const timeMs = this.wallClock(s.table);
    s.header.hlc = this.tick(s, timeMs);
    const gap = encodeGapRecord({ firstSeq: first, lastSeq: last, records, bytes, timeMs, hlc: s.header.hlc });
    this.txn.put(db, encodeSequenceKey(last), gap);
    s.header.pendingBytes = pending + gap.length;
  }
}

function sameItem(a: Item, b: Item): boolean {
  return valuesEqual({ M: a }, { M: b });
}
