/**
 * A device's side of a refused write (replication/conflict-rule.ts): the hub refused some of this
 * device's writes under a table's version rule and said so in its ack (sync-batch.ts
 * `rejections`). In ONE write txn, for each refusal in sequence order: when the local item still
 * is the refused one (for a refused delete: still absent), it is replaced by the hub's item (or
 * deleted when the hub holds none), without a change record (the hub has that version already; it
 * must not travel up as a new write); and observers get one change with origin 'sync', device
 * 'hub' and `rejected` (observe/table-change.ts). A local item that changed since is left alone:
 * a later local write is itself checked by the hub (and refused and restored in its turn if it
 * was made on the refused one), and a newer hub version that already arrived stays.
 *
 * A table received down too ('both') keeps per-item version records (stream/item-versions.ts),
 * and the refused write left its own there: later than the hub's item by the clock, it would make
 * last-writer-wins skip the hub's next writes of the key made on a clock behind it, and the device
 * would never converge. So a restore also puts the hub's version record in its place, in the same
 * txn (the ack carries it, sync-batch.ts hubVersion), or drops the record when the hub keeps none:
 * down records older than the hub's item are then skipped, and every later one applies.
 */
import { toWireItem } from '../model/binary.js';
import { itemSize } from '../model/item-size.js';
import { valuesEqual } from '../model/values-equal.js';
import type { AttributeValue, Item } from '../model/attribute-value.js';
import type { PendingChange } from '../observe/table-change.js';
import type { Database } from '../storage/database.js';
import { deleteVersion, readVersion, writeVersion } from '../stream/item-versions.js';
import { WriteSession } from '../table/write-session.js';
import type { Table } from '../table/table.js';
import type { WriteTxn } from '../storage/txn.js';
import type { WriteRejection } from './replica-types.js';

const HUB = { origin: 'sync', deviceId: 'hub' } as const;

/**
 * The restore's txn; repeatable (writeAsync may re-run it): it decides only on what it reads. The
 * Replica commits it on the engine's asynchronous path (replica.ts restoreRejected), which
 * resolves with, per rejection, whether the local copy was restored to the hub's.
 */
export function planRestore(syncDb: Database, table: Table, rejections: readonly WriteRejection[]): (txn: WriteTxn) => boolean[] {
  return (txn) => {
    const changes: PendingChange[] = [];
    const restored = rejections.map((r) => {
      const session = new WriteSession(txn, { origin: HUB, log: false, observe: false });
      const key = table.keyOf(r.keys);
      const partition = table.partitionOf(key.hash);
      const local = session.readItem(table, partition, key);
      const unchanged = r.item === undefined ? local === undefined : local !== undefined && same(local.item, r.item);
      if (unchanged) {
        if (r.hubItem) session.putItem(table, partition, key, r.hubItem, itemSize(r.hubItem), local);
        else if (local) session.deleteItem(table, partition, key, local);
        if (readVersion(txn, syncDb, table.name, key.bytes)) {
          if (r.hubVersion) writeVersion(txn, syncDb, table.name, key.bytes, r.hubVersion);
          else deleteVersion(txn, syncDb, table.name, key.bytes);
        }
      }
      session.finish();
      const after = unchanged ? r.hubItem : local?.item;
      changes.push(rejectionChange(table, r, local?.item, after, unchanged));
      return unchanged;
    });
    const feed = table.feed;
    if (feed?.observes(table.name)) txn.afterCommit(() => feed.publish(changes));
    return restored;
  };
}

function rejectionChange(table: Table, r: WriteRejection, before: Item | undefined, after: Item | undefined, restored: boolean): PendingChange {
  const keys: Record<string, AttributeValue> = {};
  for (const name of table.keyNames) keys[name] = r.keys[name]!;
  return {
    eventName: before === undefined ? (after === undefined ? 'REMOVE' : 'INSERT') : after === undefined ? 'REMOVE' : 'MODIFY',
    tableName: table.name,
    origin: 'sync',
    deviceId: 'hub',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(table.now() / 1000),
      Keys: toWireItem(keys),
      ...(after ? { NewImage: toWireItem(after) } : {}),
      ...(before ? { OldImage: toWireItem(before) } : {}),
      SizeBytes: itemSize(keys) + (after ? itemSize(after) : 0) + (before ? itemSize(before) : 0),
    },
    rejected: {
      ...(r.item ? { item: toWireItem(r.item) } : {}),
      ...(r.hubItem ? { hubItem: toWireItem(r.hubItem) } : {}),
      reason: r.reason,
      restored,
    },
  };
}

function same(a: Item, b: Item): boolean {
  return valuesEqual({ M: a }, { M: b });
}
