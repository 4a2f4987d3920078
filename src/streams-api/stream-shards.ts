/**
 * The shards of a stream: one per change-log shard, i.e. per partition the table has or had
 * (splits retire a partition and give it two children, so the shards form DynamoDB Streams'
 * lineage: ParentShardId names the partition that split). A partition that never logged a
 * record still has its shard, so lineage has no holes.
 *
 * A shard is open while its partition is current and the stream enabled; a closed shard has an
 * EndingSequenceNumber when it logged anything. StartingSequenceNumber is the oldest record still
 * kept (or, for a shard holding none, the sequence its next record gets).
 */
import { streamShardDb } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn } from '../storage/txn.js';
import { decodeSequenceKey } from '../stream/sequence-key.js';
import { listShardIds, readShardHeader } from '../stream/shard-state.js';
import type { StreamHandle } from './stream-handle.js';

export type StreamShard = {
  readonly shard: number;
  readonly parent: number | undefined;
  readonly open: boolean;
  /** The first sequence still stored, or nextSeq when none is. */
  readonly firstSeq: number;
  /** The last sequence written; 0 when none was. */
  readonly lastSeq: number;
};

export function listStreamShards(store: Store, stream: StreamHandle): StreamShard[] {
  const { table } = stream;
  const current = new Set(table.partitions.map((p) => p.range.id));
  const parents = new Map<number, number | undefined>();
  for (const p of [...table.def.partitions, ...(table.def.retiredPartitions ?? [])]) parents.set(p.id, p.parent);
  return store.read((txn) => {
    for (const id of listShardIds(txn, table.meta)) if (!parents.has(id)) parents.set(id, readShardHeader(txn, table.meta, id)?.parent);
    return [...parents.keys()].sort((a, b) => a - b).map((shard) => readStreamShard(store, txn, stream, shard, parents.get(shard), current.has(shard)));
  });
}

/** One shard's state inside a read txn. */
export function readStreamShard(store: Store, txn: ReadTxn, stream: StreamHandle, shard: number, parent: number | undefined, current: boolean): StreamShard {
  const header = readShardHeader(txn, stream.table.meta, shard);
  const nextSeq = header?.nextSeq ?? 1;
  const name = streamShardDb(stream.table.name, shard);
  const first = store.hasDatabase(name) ? txn.first(store.database(name)) : undefined;
  return {
    shard,
    parent: header?.parent ?? parent,
    open: current && stream.enabled && header?.closed !== true,
    firstSeq: first ? decodeSequenceKey(first.key) : nextSeq,
    lastSeq: nextSeq - 1,
  };
}

/** One shard of the stream by number, or undefined when the table has no such shard. */
export function findStreamShard(store: Store, stream: StreamHandle, shard: number): StreamShard | undefined {
  const { table } = stream;
  const range = [...table.def.partitions, ...(table.def.retiredPartitions ?? [])].find((p) => p.id === shard);
  return store.read((txn) => {
    if (!range && !readShardHeader(txn, table.meta, shard)) return undefined;
    return readStreamShard(store, txn, stream, shard, range?.parent, table.partitions.some((p) => p.range.id === shard));
  });
}
