/**
 * The end of a base read at a device ("base done", docs/sync.md): the device's copy of the
 * subscribed partitions becomes exactly what the base held. Every item of the subscribed
 * partitions that no page of this base marked (down-records.ts) is deleted with its version
 * record (the hub no longer has it: deleted, with its tombstone collected, while the device was
 * away longer than the version horizon), except the device's own writes the hub may not have yet:
 * those still in its outbox, those made since the base started (newer than its start clock), and
 * the items without a version record while the table's own first-sync base read is unfinished or
 * finished after this base started (replication/base-read.ts keepsUnversionedItems).
 * Then the table's base record says this base is done (a base-done delivered again, the device
 * having crashed before the hub had its ack, sweeps nothing), in the txn that clears a re-read the
 * device asked for (rebase-marks.ts), and every mark of the table goes.
 *
 * Bounded: pages of at most PAGE items per write txn. A deletion's change record carries an origin
 * (the hub's collected state), so the sync agent does not send it up as a new delete.
 */
import { startsWith } from '../codec/key-bytes.js';
import type { EncodedKey } from '../codec/item-key.js';
import { decodeStreamRecord } from '../stream/change-record.js';
import { compareHlc, HLC_ZERO } from '../stream/hlc.js';
import { deleteVersion, readVersion } from '../stream/item-versions.js';
import { listShardIds, readShardHeader } from '../stream/shard-state.js';
import { readShardRaw } from '../stream/stream-reader.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { WriteSession } from '../table/write-session.js';
import { keepsUnversionedItems } from '../replication/base-read.js';
import type { Table } from '../table/table.js';
import type { Commit } from './commit.js';
import { clearRebaseMark } from './rebase-marks.js';
import { isBaseDone, markPrefix, readDeviceBase, readMark, writeDeviceBase } from './down-records.js';

const PAGE = 500;
const FROM_HUB = { origin: 'sync', deviceId: 'hub' } as const;

export type SweepContext = {
  readonly store: Store;
  /** Commits each page (replica.ts: the engine's asynchronous commit path). */
  readonly commit: Commit;
  readonly syncDb: Database;
  readonly table: Table;
  /** Stored-key prefixes of the subscribed partition keys; undefined: the whole table. */
  readonly prefixes: readonly Uint8Array[] | undefined;
  readonly self: { readonly device: string; readonly incarnation: string };
  /** The hub's id, as the origin of the sweep's deletions. */
  readonly hubId?: string;
};

/**
 * Returns the number of items deleted. Each page is one txn committed off the event loop
 * (ctx.commit, the engine's asynchronous commit path), in order; the promise resolves once the last (the base record cleared) is
 * durable. A page's txn may run more than once; it decides only on what it reads.
 */
export async function sweepBase(ctx: SweepContext, baseId: string): Promise<number> {
  const { store, syncDb, table } = ctx;
  const base = store.read((txn) => readDeviceBase(txn, syncDb, table.name));
  // Swept already (its marks are gone): a second sweep would drop every item the base held.
  if (isBaseDone(base, baseId)) return 0;
  // A base whose pages never came (the hub had nothing) has no record: keep every own write.
  const startClock = base && !base.done ? base.startClock : HLC_ZERO;
  const pending = pendingKeys(store, table);
  let deleted = 0;
  for (const partition of table.partitions) {
    let after: Uint8Array | undefined;
    for (;;) {
      const step = await ctx.commit((txn) => {
        const session = new WriteSession(txn, { origin: FROM_HUB }); // observers see a write that came from the hub
        let seen = 0;
        let last: Uint8Array | undefined;
        let removed = 0;
        // Stored keys (the walk's position) and the items' keys in item-key.ts's layout, which
        // marks, versions and prefixes use (they differ in a partition-id table).
        const page: { stored: Uint8Array; encoded: EncodedKey }[] = [];
        const keepUnversioned = keepsUnversionedItems(txn, table, startClock);
        for (const { key, value } of txn.cursor(partition.db, after ? { start: after, startExclusive: true, limit: PAGE } : { limit: PAGE })) {
          const stored = Uint8Array.prototype.slice.call(key);
          page.push({ stored, encoded: table.keyOfStored(txn, stored, value) });
        }
        for (const { stored, encoded } of page) {
          const key = encoded.bytes;
          seen += 1;
          last = stored;
          if (ctx.prefixes && !ctx.prefixes.some((p) => startsWith(key, p))) continue;
          if (readMark(txn, syncDb, table.name, key) === baseId) continue;
          const version = readVersion(txn, syncDb, table.name, key);
          // An item held since this table's up base read began, which the hub may not have had yet.
          if (version === undefined && keepUnversioned) continue;
          const own = version !== undefined && version.device === ctx.self.device && version.incarnation === ctx.self.incarnation;
          if (own && (compareHlc(version.hlc, startClock) > 0 || pending.has(hex(key)))) continue;
          const old = session.readState(table, partition, encoded);
          if (!old) continue;
          session.receivedVersion = { hlc: startClock, device: ctx.hubId ?? 'hub', incarnation: '' };
          session.deleteItem(table, partition, encoded, old);
          session.receivedVersion = undefined;
          deleteVersion(txn, syncDb, table.name, key);
          removed += 1;
        }
        session.finish();
        return { seen, last, removed };
      });
      deleted += step.removed;
      if (step.seen < PAGE) break;
      after = step.last;
    }
  }
  // Done before the marks go: a crash between the two leaves marks of this base (cleared by the
  // next sweep), never a base record without done and without its marks.
  // A re-read the device asked for (rebase-marks.ts) is over with it.
  await ctx.commit((txn) => {
    writeDeviceBase(txn, syncDb, table.name, { id: baseId, startClock, done: true });
    clearRebaseMark(txn, syncDb, table.name);
  });
  await clearMarks(ctx.commit, syncDb, table.name);
  return deleted;
}

/** Keys of the device's own writes still in its outbox (not acknowledged by the hub). */
function pendingKeys(store: Store, table: Table): Set<string> {
  const keys = new Set<string>();
  const shards = store.read((txn) => listShardIds(txn, table.meta).map((id) => ({ id, header: readShardHeader(txn, table.meta, id)! })));
  for (const { id, header } of shards) {
    for (let from = header.ackedSeq + 1; ; ) {
      const page = readShardRaw(store, table.name, id, from, 1000);
      if (page.length === 0) break;
      for (const { bytes } of page) {
        const r = decodeStreamRecord(bytes);
        if (r.kind === 'change' && !r.origin) keys.add(hex(table.keyOf(r.keys).bytes));
      }
      from = page[page.length - 1]!.seq + 1;
    }
  }
  return keys;
}

async function clearMarks(commit: Commit, syncDb: Database, table: string): Promise<void> {
  const prefix = markPrefix(table);
  const end = Uint8Array.from(prefix);
  end[end.length - 1] = 1; // the byte after the 0x00 separator
  for (;;) {
    const n = await commit((txn) => {
      const doomed: Uint8Array[] = [];
      for (const { key } of txn.cursor(syncDb, { start: prefix, end, limit: PAGE })) doomed.push(Uint8Array.prototype.slice.call(key));
      for (const k of doomed) txn.delete(syncDb, k);
      return doomed.length;
    });
    if (n < PAGE) return;
  }
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
