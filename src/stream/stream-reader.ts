/**
 * The local change-stream reader, in the spirit of DynamoDB Streams' DescribeStream/GetRecords:
 * list a table's shards (with their parents, for lineage across partition splits) and read one
 * shard from a sequence number. Records come in DynamoDB Streams' record shape (wire-form
 * AttributeValues), projected to the table's StreamViewType (or the one asked for).
 *
 * Reads see what was committed when they start, including commits of other processes.
 * Records the sync agent pruned after acknowledgement (see SyncSettings.retentionMs) are gone;
 * a read from a pruned sequence starts at the oldest record still kept.
 */
import { toWireItem } from '../model/binary.js';
import type { WireItem } from '../model/attribute-value.js';
import { streamShardDb } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn } from '../storage/txn.js';
import type { StreamViewType } from '../table/table-definition.js';
import type { Table } from '../table/table.js';
import { decodeStreamRecord, type StreamRecord } from './change-record.js';
import { decodeSequenceKey, encodeSequenceKey } from './sequence-key.js';
import { listShardIds, readShardHeader } from './shard-state.js';

export type ShardDescription = {
  readonly ShardId: number;
  readonly ParentShardId?: number;
  /** Oldest record still kept (absent when the shard holds none) and the last one written. */
  readonly SequenceNumberRange: { readonly StartingSequenceNumber?: number; readonly LastSequenceNumber: number };
  /** False once the partition split: the shard gets no more records. */
  readonly Open: boolean;
};

export type StreamRecordView = {
  readonly eventID: string;
  readonly eventName: 'INSERT' | 'MODIFY' | 'REMOVE' | 'GAP';
  readonly eventVersion: '1.1';
  readonly eventSource: 'aws:dynamodb';
  readonly dynamodb: {
    readonly ApproximateCreationDateTime: number;
    readonly Keys?: WireItem;
    readonly NewImage?: WireItem;
    readonly OldImage?: WireItem;
    readonly SequenceNumber: string;
    readonly SizeBytes?: number;
    readonly StreamViewType?: StreamViewType;
  };
  readonly userIdentity?: { readonly Type: 'Service'; readonly PrincipalId: 'dynamodb.amazonaws.com' };
  /** edgetable extension: records dropped unsent by the outbox policy 'drop-oldest'. */
  readonly gap?: { readonly firstSeq: number; readonly lastSeq: number; readonly records: number; readonly bytes: number };
};

export type RawRecord = { readonly seq: number; readonly bytes: Uint8Array };

export function listShards(store: Store, table: Table): ShardDescription[] {
  const current = new Set(table.partitions.map((p) => p.range.id));
  return store.read((txn) =>
    listShardIds(txn, table.meta).map((id) => {
      const h = readShardHeader(txn, table.meta, id)!;
      const first = firstSeq(store, txn, table.name, id);
      return {
        ShardId: id,
        ...(h.parent !== undefined ? { ParentShardId: h.parent } : {}),
        SequenceNumberRange: { ...(first !== undefined ? { StartingSequenceNumber: first } : {}), LastSequenceNumber: h.nextSeq - 1 },
        Open: current.has(id) && !h.closed,
      };
    }),
  );
}

/** Up to `limit` records with seq >= fromSeq, as stored bytes (copies the caller owns). */
export function readShardRaw(store: Store, tableName: string, shard: number, fromSeq: number, limit: number, maxBytes = Infinity): RawRecord[] {
  const name = streamShardDb(tableName, shard);
  if (!store.hasDatabase(name)) return [];
  const db = store.database(name);
  return store.read((txn) => {
    const out: RawRecord[] = [];
    let bytes = 0;
    for (const { key, value } of txn.cursor(db, { start: encodeSequenceKey(Math.max(1, fromSeq)), limit })) {
      if (out.length > 0 && bytes + value.length > maxBytes) break;
      out.push({ seq: decodeSequenceKey(key), bytes: Uint8Array.prototype.slice.call(value) });
      bytes += value.length;
    }
    return out;
  });
}

export function readShard(
  store: Store,
  table: Table,
  shard: number,
  options: { fromSeq?: number; limit?: number; viewType?: StreamViewType } = {},
): { Records: StreamRecordView[]; NextSequenceNumber: number } {
  const limit = options.limit ?? 1000;
  const fromSeq = options.fromSeq ?? 1;
  const view = options.viewType ?? table.def.StreamSpecification?.StreamViewType;
  const raw = readShardRaw(store, table.name, shard, fromSeq, limit);
  const Records: StreamRecordView[] = [];
  for (const { seq, bytes } of raw) {
    const r = decodeStreamRecord(bytes);
    // A hub's version-only record (change-record.ts) changed no item: not a stream event.
    if (r.kind === 'change' && r.versionOnly) continue;
    Records.push(toView(shard, seq, r, view));
  }
  return { Records, NextSequenceNumber: raw.length > 0 ? raw[raw.length - 1]!.seq + 1 : fromSeq };
}

function toView(shard: number, seq: number, r: StreamRecord, view: StreamViewType | undefined): StreamRecordView {
  const base = { eventID: `${shard}-${seq}`, eventVersion: '1.1', eventSource: 'aws:dynamodb' } as const;
  if (r.kind === 'gap') {
    return {
      ...base,
      eventName: 'GAP',
      dynamodb: { ApproximateCreationDateTime: r.timeMs / 1000, SequenceNumber: String(seq) },
      gap: { firstSeq: r.firstSeq, lastSeq: r.lastSeq, records: r.records, bytes: r.bytes },
    };
  }
  const wantNew = view === undefined || view === 'NEW_IMAGE' || view === 'NEW_AND_OLD_IMAGES';
  const wantOld = view === undefined || view === 'OLD_IMAGE' || view === 'NEW_AND_OLD_IMAGES';
  return {
    ...base,
    eventName: r.eventName,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(r.timeMs / 1000),
      Keys: toWireItem(r.keys),
      ...(wantNew && r.newImage ? { NewImage: toWireItem(r.newImage) } : {}),
      ...(wantOld && r.oldImage ? { OldImage: toWireItem(r.oldImage) } : {}),
      SequenceNumber: String(seq),
      SizeBytes: r.sizeBytes,
      ...(view ? { StreamViewType: view } : {}),
    },
    ...(r.ttl ? { userIdentity: { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' } as const } : {}),
  };
}

function firstSeq(store: Store, txn: ReadTxn, tableName: string, shard: number): number | undefined {
  const name = streamShardDb(tableName, shard);
  if (!store.hasDatabase(name)) return undefined;
  const entry = txn.first(store.database(name));
  return entry ? decodeSequenceKey(entry.key) : undefined;
}
