/**
 * What `db.observe` delivers (change-feed.ts): one committed change of one item, shaped as a
 * DynamoDB Streams record (streams-api/stream-record.ts) with both images, plus where it came from.
 *
 * - `eventName`: INSERT (no item was stored under the key), MODIFY (an item was replaced by a
 *   different one), REMOVE (an item was deleted). A put that stores an identical item is no
 *   change, as in DynamoDB Streams.
 * - `dynamodb.Keys`, `NewImage` (INSERT, MODIFY), `OldImage` (MODIFY, REMOVE): wire-shaped items.
 * - `origin`: 'local' for a write made through this process's engine (the embedded API,
 *   db.promises, the HTTP server, TTL expiry), 'sync' for one applied by sync; `deviceId` then
 *   names the device whose write it was ('hub' for a write made at the hub).
 * - `userIdentity`: DynamoDB's service identity on a REMOVE done by TTL expiry.
 * - `rejected` (origin 'sync', deviceId 'hub'): the hub refused this device's write under the
 *   table's version rule (replication/conflict-rule.ts), or for a clock too far ahead in a table it
 *   receives too (replication/apply-batch.ts); `item` is the refused item (absent for a refused
 *   delete), `hubItem` the hub's (absent: the hub holds none). `restored`: the local copy still
 *   was the refused item and has been replaced by the hub's in this change (OldImage -> NewImage);
 *   false when it had changed since (a later local write, or the hub's newer version already
 *   arrived), and then the images are the local item, unchanged.
 * - `sequence`: this database's delivery counter, 1, 2, 3... in commit order (process-local).
 */
import type { WireItem } from '../model/attribute-value.js';

export type ChangeOrigin = 'local' | 'sync';

export type RejectedWrite = {
  /** The item the device wrote and the hub refused; absent for a delete. */
  readonly item?: WireItem;
  /** The hub's item when it refused the write; absent when the hub holds none. */
  readonly hubItem?: WireItem;
  readonly reason: string;
  readonly restored: boolean;
};

export type TableChange = {
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly tableName: string;
  readonly sequence: number;
  readonly origin: ChangeOrigin;
  readonly deviceId?: string;
  readonly dynamodb: {
    /** Epoch seconds of the write. */
    readonly ApproximateCreationDateTime: number;
    readonly Keys: WireItem;
    readonly NewImage?: WireItem;
    readonly OldImage?: WireItem;
    /** DynamoDB item size of the keys and images. */
    readonly SizeBytes: number;
  };
  readonly userIdentity?: { readonly Type: 'Service'; readonly PrincipalId: 'dynamodb.amazonaws.com' };
  readonly rejected?: RejectedWrite;
};

/** A change before the feed numbers it. */
export type PendingChange = Omit<TableChange, 'sequence'>;

/** Who made the writes of a WriteSession: this process's engine, or sync on behalf of a device. */
export type WriteOrigin = { readonly origin: 'local' } | { readonly origin: 'sync'; readonly deviceId: string };

export const LOCAL_ORIGIN: WriteOrigin = Object.freeze({ origin: 'local' });
