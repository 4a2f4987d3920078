/**
 * The shards of a stream: one per change-log shard, i.e. per partition the table has or had
 * (splits retire a partition and give it two children, so the shards form DynamoDB Streams'
 * lineage: ParentShardId names the partition that split). A partition that never logged a
 * record still has its shard, so lineage has no holes.
 *
 * A shard is open while its partition is current and the stream enabled; a closed shard has an
 * EndingSequenceNumber when it logged anything. StartingSequenceNumber is the oldest record still
 * kept (or, for a shard holding none, the sequence its next record gets). The shards of an ended
 * stream (its table deleted: stream/ended-streams.ts) are all closed.
 */
import { streamShardDb } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn } from '../storage/txn.js';
import { endedRecords, firstEndedSeq, type EndedShard, type EndedStream } from '../stream/ended-streams.js';
import { decodeSequenceKey, encodeSequenceKey } from '../stream/sequence-key.js';
import { listShardIds, readShardHeader } from '../stream/shard-state.js';
import type { Table } from '../table/table.js';
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
  const { source } = stream;
  if (source.kind === 'ended') return store.read((txn) => source.ended.shards.map((s) => readEndedShard(store, txn, source.ended, s)));
  const { table } = source;
  const current = new Set(table.partitions.map((p) => p.range.id));
  const parents = new Map<number, number | undefined>();
  for (const p of [...table.def.partitions, ...(table.def.retiredPartitions ?? [])]) parents.set(p.id, p.parent);
  return store.read((txn) => {
    for (const id of listShardIds(txn, table.meta)) if (!parents.has(id)) parents.set(id, readShardHeader(txn, table.meta, id)?.parent);
    return [...parents.keys()].sort((a, b) => a - b).map((shard) => readTableShard(store, txn, table, stream.enabled, shard, parents.get(shard), current.has(shard)));
  });
}

/** One shard of the stream by number, or undefined when the stream has no such shard. */
export function findStreamShard(store: Store, stream: StreamHandle, shard: number): StreamShard | undefined {
  const { source } = stream;
  if (source.kind === 'ended') {
    const ended = source.ended.shards.find((s) => s.shard === shard);
    return ended && store.read((txn) => readEndedShard(store, txn, source.ended, ended));
  }
  const { table } = source;
  const range = [...table.def.partitions, ...(table.def.retiredPartitions ?? [])].find((p) => p.id === shard);
  return store.read((txn) => {
    if (!range && !readShardHeader(txn, table.meta, shard)) return undefined;
    return readTableShard(store, txn, table, stream.enabled, shard, range?.parent, table.partitions.some((p) => p.range.id === shard));
  });
}

/**
 * The stored records of one shard from sequence `fromSeq` on, in sequence order, inside the
 * caller's read txn; a value is valid until the iteration moves on.
 */
export function* shardRecords(store: Store, txn: ReadTxn, stream: StreamHandle, shard: number, fromSeq: number): Generator<{ seq: number; value: Uint8Array }> {
  const { source } = stream;
  if (source.kind === 'ended') {
    yield* endedRecords(store, txn, source.ended, shard, fromSeq);
    return;
  }
  const name = streamShardDb(source.table.name, shard);
  if (!store.hasDatabase(name)) return;
  for (const { key, value } of txn.cursor(store.database(name), { start: encodeSequenceKey(Math.max(1, fromSeq)) })) yield { seq: decodeSequenceKey(key), value };
}

/** One shard of a live table's stream inside a read txn. */
function readTableShard(store: Store, txn: ReadTxn, table: Table, enabled: boolean, shard: number, parent: number | undefined, current: boolean): StreamShard {
  const header = readShardHeader(txn, table.meta, shard);
  const nextSeq = header?.nextSeq ?? 1;
  const name = streamShardDb(table.name, shard);
  const first = store.hasDatabase(name) ? txn.first(store.database(name)) : undefined;
  return {
    shard,
    parent: header?.parent ?? parent,
    open: current && enabled && header?.closed !== true,
    firstSeq: first ? decodeSequenceKey(first.key) : nextSeq,
    lastSeq: nextSeq - 1,
  };
}

function readEndedShard(store: Store, txn: ReadTxn, ended: EndedStream, shard: EndedShard): StreamShard {
  return { shard: shard.shard, parent: shard.parent, open: false, firstSeq: firstEndedSeq(store, txn, ended, shard.shard) ?? shard.lastSeq + 1, lastSeq: shard.lastSeq };
}
