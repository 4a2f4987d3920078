/**
 * The first sync of a table that already holds items: a base read instead of a copy into the
 * outbox. Enabling sync marks the table and records a base read (base-read-state.ts); the sync
 * agent then reads the table's items in pages, in key order, each page with one short read txn,
 * sends each page as an ordinary sync batch on the shard BASE_SHARD, and moves the durable cursor
 * only when the hub acknowledges the page. Memory is one page; the outbox holds only the writes
 * made after enable, as it does for any synced table.
 *
 * Convergence with the writes racing the read: every base record carries the item's own version
 * when it has one (a table received too, 'both'), else the clock taken at enable, which is older
 * than every write made after it. At the hub last-writer-wins therefore keeps a later write of the
 * key whichever arrives first, and a key deleted after enable is either not read at all or
 * superseded by its delete's tombstone. Items whose version is another store's (received from the
 * hub) are not sent: the hub has them.
 *
 * Partition splits during the read: the cursor names the partition by its start hash; after a
 * split the read goes on in the child holding that hash after the cursor's key, then in the
 * other child from its start, so items of that child already sent go again (the hub answers them
 * as superseded). Nothing is skipped.
 */
import type { Commit } from './commit.js';
import type { EncodedKey } from '../codec/item-key.js';
import { decodeItem } from '../codec/item-value.js';
import { recordBody, recordItemSize } from '../codec/item-record.js';
import type { AttributeValue, Item } from '../model/attribute-value.js';
import { itemSize } from '../model/item-size.js';
import { SYNC_DB } from '../partition/database-names.js';
import { HASH_SPACE } from '../partition/partition-map.js';
import type { Store } from '../storage/store.js';
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { encodeChangeRecord } from '../stream/change-record.js';
import { HLC_ZERO, compareHlc, maxHlc, readStoreClock, tickHlc, writeStoreClock, type Hlc } from '../stream/hlc.js';
import { readVersion, type Version } from '../stream/item-versions.js';
import { listShardIds, readShardHeader, readSyncSettings, writeSyncSettings, type SyncSettings } from '../stream/shard-state.js';
import type { Table } from '../table/table.js';
import { BASE_PAGE_STRIDE, isBaseReadDone, readBaseState, writeBaseState, type BaseCursor, type BaseState } from './base-read-state.js';

/** One page of a base read, as read; committed by commitBasePage once the hub acknowledged it. */
export type BasePage = {
  readonly tableId: string;
  readonly page: number;
  readonly records: readonly { readonly seq: number; readonly bytes: Uint8Array }[];
  /** The position after this page. */
  readonly cursor: BaseCursor;
  /** True when the page reaches the end of the table. */
  readonly last: boolean;
};

/**
 * Marks the table as synced (writeSyncSettings). The first time, and only when `incarnation` is
 * given (the table is sent up) and the table holds items, records its base read in the same txn;
 * returns the number of items it held (0: no base read).
 */
export function enableSyncWithBase(store: Store, table: Table, settings: SyncSettings, incarnation: string | undefined, nowMs = Date.now()): number {
  return store.write((txn) => {
    const before = readSyncSettings(txn, table.meta);
    writeSyncSettings(txn, table.meta, settings);
    if (before !== undefined || incarnation === undefined || readBaseState(txn, table.meta) !== undefined) return 0;
    let total = 0;
    for (const p of table.partitions) total += txn.count(p.db);
    if (total === 0) return 0;
    const syncDb = store.database(SYNC_DB);
    const hlc = tickHlc(storeClock(txn, syncDb, table), nowMs);
    writeStoreClock(txn, syncDb, hlc);
    writeBaseState(txn, table.meta, { tableId: table.def.TableId, incarnation, hlc, total, acked: 0, page: 1, cursor: { start: 0 }, startedMs: nowMs, versioned: settings.versions !== undefined });
    return total;
  });
}

/**
 * Takes a new page number for this agent's session (see base-read-state.ts); resolves with the
 * state, or undefined when the table has no unfinished base read of its current TableId.
 */
export function beginBaseSession(commit: Commit, table: Table): Promise<BaseState | undefined> {
  return commit((txn) => {
    const state = readBaseState(txn, table.meta);
    if (state === undefined || isBaseReadDone(state) || state.tableId !== table.def.TableId) return state;
    const next = { ...state, page: state.page + 1 };
    writeBaseState(txn, table.meta, next);
    return next;
  });
}

export function readBaseProgress(store: Store, table: Table): BaseState | undefined {
  return store.read((txn) => readBaseState(txn, table.meta));
}

/**
 * The next page after the acknowledged cursor: at most `maxRecords` records and about `maxBytes`
 * (at least one record), read in one read txn. Undefined when there is nothing to read.
 */
export function readBasePage(store: Store, table: Table, maxRecords: number, maxBytes: number, nowMs = Date.now()): BasePage | undefined {
  return store.read((txn) => {
    const state = readBaseState(txn, table.meta);
    if (state === undefined || isBaseReadDone(state) || state.tableId !== table.def.TableId) return undefined;
    const settings = readSyncSettings(txn, table.meta);
    const self = settings?.versions;
    const syncDb = store.hasDatabase(SYNC_DB) ? store.database(SYNC_DB) : undefined;
    const partitions = [...table.partitions].sort((a, b) => a.range.start - b.range.start);
    const records: { seq: number; bytes: Uint8Array }[] = [];
    let bytes = 0;
    // Items skipped (another store's version) still cost the read: bound them too.
    let scanned = 0;
    const maxScanned = maxRecords * 8;
    let cursor: BaseCursor = state.cursor;
    for (const p of partitions) {
      if (p.range.end <= cursor.start) continue;
      let after: Uint8Array | undefined = p.range.start <= cursor.start && cursor.key !== undefined ? Buffer.from(cursor.key, 'hex') : undefined;
      let full = false;
      txn.each(p.db, after ? { start: after, startExclusive: true } : {}, (value, key) => {
        if (records.length >= maxRecords || bytes >= maxBytes || scanned >= maxScanned) {
          full = true;
          return false;
        }
        scanned += 1;
        after = key;
        const record = baseRecord(txn, syncDb, table, key, value, state, self, nowMs);
        if (record !== undefined) {
          records.push({ seq: state.page * BASE_PAGE_STRIDE + records.length + 1, bytes: record });
          bytes += record.length;
        }
        return true;
      });
      if (full) {
        cursor = after ? { start: p.range.start, key: Buffer.from(after).toString('hex') } : { start: p.range.start };
        return { tableId: state.tableId, page: state.page, records, cursor, last: false };
      }
      cursor = { start: p.range.end };
    }
    return { tableId: state.tableId, page: state.page, records, cursor: { start: HASH_SPACE }, last: true };
  }, 'range-read');
}

/**
 * Records that the hub acknowledged `page` (or that it held nothing to send): the cursor moves past
 * it and the next page number is taken; the last page marks the base read done. Does nothing when
 * the state moved on (another page number, a re-created table). Committed off the event loop, on
 * the engine's commit path (`commit`: replica.ts, db.promises' queue).
 */
export function commitBasePage(store: Store, commit: Commit, table: Table, page: BasePage, nowMs = Date.now()): Promise<BaseState | undefined> {
  return commit((txn) => {
    const state = readBaseState(txn, table.meta);
    if (state === undefined || isBaseReadDone(state) || state.tableId !== page.tableId || state.page !== page.page) return state;
    let doneHlc: Hlc | undefined;
    if (page.last) {
      const syncDb = store.database(SYNC_DB);
      doneHlc = tickHlc(storeClock(txn, syncDb, table), nowMs);
      writeStoreClock(txn, syncDb, doneHlc);
    }
    const next: BaseState = { ...state, cursor: page.cursor, acked: state.acked + page.records.length, page: state.page + 1, ...(doneHlc ? { doneHlc } : {}) };
    writeBaseState(txn, table.meta, next);
    return next;
  });
}

/**
 * The version a local item without a version record has, in a table whose base read began while
 * it was received too (two-way): the clock taken at enable, this store's. Such an item is one the
 * table held at enable and nobody wrote since; its base record carries exactly this version to
 * the hub. Undefined otherwise (no base read, or one of a table not received then).
 */
export function implicitBaseVersion(txn: ReadTxn, table: Table): Version | undefined {
  const state = readBaseState(txn, table.meta);
  const self = readSyncSettings(txn, table.meta)?.versions;
  if (state === undefined || !state.versioned || self === undefined) return undefined;
  return { hlc: state.hlc, device: self.writer, incarnation: self.incarnation };
}

/**
 * Whether a down base read that began at `startClock` must keep the items without a version
 * record (sync/sweep-base.ts): they are items the table held at enable, and the hub may not have
 * had them when it read the pages of that base (the up base read not done, or done after it began).
 */
export function keepsUnversionedItems(txn: ReadTxn, table: Table, startClock: Hlc): boolean {
  const state = readBaseState(txn, table.meta);
  if (state === undefined) return false;
  return state.doneHlc === undefined || compareHlc(state.doneHlc, startClock) >= 0;
}

function baseRecord(txn: ReadTxn, syncDb: Database | undefined, table: Table, stored: Uint8Array, value: Uint8Array, state: BaseState, self: SyncSettings['versions'], nowMs: number): Uint8Array | undefined {
  let hlc = state.hlc;
  if (self !== undefined && syncDb !== undefined) {
    const encoded: EncodedKey = table.keyOfStored(txn, stored, value);
    const version = readVersion(txn, syncDb, table.name, encoded.bytes);
    if (version !== undefined) {
      // Received from the hub (another store's write): the hub has it already.
      if (version.device !== self.writer || version.incarnation !== self.incarnation) return undefined;
      // Written here since enable: its change record sends it.
      if (compareHlc(version.hlc, state.hlc) > 0) return undefined;
      hlc = version.hlc;
    }
  }
  const item: Item = decodeItem(recordBody(value), 0, table.names);
  const keys: Record<string, AttributeValue> = {};
  for (const name of table.keyNames) keys[name] = item[name]!;
  return encodeChangeRecord({ eventName: 'INSERT', keys, newImage: item, timeMs: nowMs, hlc, sizeBytes: itemSize(keys) + recordItemSize(value), ttl: false });
}

/** The store clock, or for a store written before it existed, its newest shard clock. */
function storeClock(txn: WriteTxn, syncDb: Database, table: Table): Hlc {
  const clock = readStoreClock(txn, syncDb);
  if (clock !== undefined) return clock;
  let hlc: Hlc = HLC_ZERO;
  for (const shard of listShardIds(txn, table.meta)) hlc = maxHlc(hlc, readShardHeader(txn, table.meta, shard)!.hlc);
  return hlc;
}
