/**
 * The streams of deleted tables, readable for the stream retention (DynamoDB: 24 hours) after
 * DeleteTable, as DynamoDB keeps them: DeleteTable disables the stream, and ListStreams,
 * DescribeStream, GetShardIterator and GetRecords serve it until its records age out.
 *
 * DeleteTable drops every database of the table in its txn (another process may create a table of
 * the same name as soon as it commits), so the stream is moved out first, in the same txn, into
 * two store-wide databases:
 *
 *   _ended_streams         key   := tableName 0x00 label
 *                          value := JSON EndedStream
 *   _ended_stream_records  key   := tableName 0x00 label 0x00 shard:u32be seq:u64be (sequence-key.ts)
 *                          value := the change record as its shard stored it (change-record.ts)
 *
 * (Names are [a-zA-Z0-9_.-] and labels ISO-8601 text, so 0x00 never occurs inside them.) Every
 * record of the table's shards is moved, as the shards held them, so sequence numbers and trim
 * horizons stay what readers saw. trimEndedStreams deletes records older than the retention and
 * drops an ended stream once the retention has passed since its table was deleted.
 */
import type { KeySchemaElement } from '../model/key-schema.js';
import { ENDED_STREAMS_DB, ENDED_STREAM_RECORDS_DB, streamShardDb } from '../partition/database-names.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import type { StreamViewType } from '../table/table-definition.js';
import type { Table } from '../table/table.js';
import { decodeStreamRecord } from './change-record.js';
import { decodeSequenceKey, encodeSequenceKey, SEQUENCE_KEY_BYTES } from './sequence-key.js';
import { listShardIds, readShardHeader } from './shard-state.js';

export type EndedShard = {
  readonly shard: number;
  readonly parent: number | undefined;
  /** The last sequence the shard wrote; 0 when it wrote none. */
  readonly lastSeq: number;
};

export type EndedStream = {
  readonly tableName: string;
  readonly tableArn: string;
  readonly keySchema: readonly KeySchemaElement[];
  readonly label: string;
  readonly viewType: StreamViewType;
  /** Records written after this belong to no stream: the stream's disable time or the table's delete time. */
  readonly untilMs: number;
  /** When the table was deleted. */
  readonly endedAtMs: number;
  readonly shards: readonly EndedShard[];
};

/** Records deleted per pass at most, so a trimming pass never holds the writer long. */
const MAX_TRIMMED_PER_PASS = 10_000;

/**
 * Moves the table's latest stream, if it has one, into the ended streams, in DeleteTable's write
 * txn and before the table's databases are dropped. `nowMs` is the delete time.
 */
export function endTableStream(store: Store, txn: WriteTxn, table: Table, nowMs: number): void {
  const def = table.def;
  const label = def.LatestStreamLabel;
  const spec = def.StreamSpecification;
  const enabled = spec?.StreamEnabled === true;
  const viewType = enabled ? spec.StreamViewType : def.LatestStreamEnd?.StreamViewType;
  if (label === undefined || viewType === undefined) return;
  const parents = new Map<number, number | undefined>();
  for (const p of [...def.partitions, ...(def.retiredPartitions ?? [])]) parents.set(p.id, p.parent);
  for (const id of listShardIds(txn, table.meta)) if (!parents.has(id)) parents.set(id, undefined);
  const records = store.database(ENDED_STREAM_RECORDS_DB);
  const shards: EndedShard[] = [...parents.keys()].sort((a, b) => a - b).map((shard) => {
    const header = readShardHeader(txn, table.meta, shard);
    const name = streamShardDb(table.name, shard);
    if (store.hasDatabase(name)) {
      for (const { key, value } of txn.cursor(store.database(name))) txn.put(records, recordKey(table.name, label, shard, decodeSequenceKey(key)), Uint8Array.prototype.slice.call(value));
    }
    return { shard, parent: header?.parent ?? parents.get(shard), lastSeq: (header?.nextSeq ?? 1) - 1 };
  });
  const ended: EndedStream = {
    tableName: table.name,
    tableArn: def.TableArn,
    keySchema: def.KeySchema,
    label,
    viewType,
    untilMs: enabled ? nowMs : Math.min(nowMs, def.LatestStreamEnd?.disabledAtMs ?? nowMs),
    endedAtMs: nowMs,
    shards,
  };
  txn.put(store.database(ENDED_STREAMS_DB), streamKey(table.name, label), Buffer.from(JSON.stringify(ended), 'utf8'));
}

/** The ended streams, of one table name or of all, in key order (table name, then label). */
export function listEndedStreams(store: Store, tableName?: string): EndedStream[] {
  if (!store.hasDatabase(ENDED_STREAMS_DB)) return [];
  const db = store.database(ENDED_STREAMS_DB);
  const range = tableName === undefined ? {} : { start: prefixOf(tableName), end: prefixEnd(prefixOf(tableName)) };
  return store.read((txn) => [...txn.cursor(db, range)].map(({ value }) => parseEnded(value)));
}

/** One ended stream by table name and label, or undefined. */
export function findEndedStream(store: Store, tableName: string, label: string): EndedStream | undefined {
  if (!store.hasDatabase(ENDED_STREAMS_DB)) return undefined;
  const db = store.database(ENDED_STREAMS_DB);
  return store.read((txn) => {
    const raw = txn.get(db, streamKey(tableName, label));
    return raw ? parseEnded(raw) : undefined;
  });
}

/** The first sequence still kept in one shard of an ended stream, or undefined when none is. */
export function firstEndedSeq(store: Store, txn: ReadTxn, ended: EndedStream, shard: number): number | undefined {
  for (const { seq } of endedRecords(store, txn, ended, shard, 1)) return seq;
  return undefined;
}

/**
 * The records of one shard of an ended stream from sequence `fromSeq`, in sequence order. The
 * values are valid until the txn moves on, as a cursor's are.
 */
export function* endedRecords(store: Store, txn: ReadTxn, ended: EndedStream, shard: number, fromSeq: number): Generator<{ seq: number; value: Uint8Array }> {
  if (!store.hasDatabase(ENDED_STREAM_RECORDS_DB)) return;
  const start = recordKey(ended.tableName, ended.label, shard, Math.max(0, fromSeq));
  const end = recordKey(ended.tableName, ended.label, shard + 1, 0);
  for (const { key, value } of txn.cursor(store.database(ENDED_STREAM_RECORDS_DB), { start, end })) {
    yield { seq: decodeSequenceKey(key.subarray(key.length - SEQUENCE_KEY_BYTES)), value };
  }
}

/**
 * Deletes the records of ended streams older than `retentionMs` and drops every ended stream
 * whose table was deleted `retentionMs` ago or more. Returns the number of records deleted. A pass
 * with nothing due costs one read txn; it looks at each stream's first record only, so an old
 * record behind a younger one of a lower shard may wait for its stream to be dropped, at most
 * `retentionMs` after the delete.
 */
export function trimEndedStreams(store: Store, nowMs: number, retentionMs: number): number {
  if (!store.hasDatabase(ENDED_STREAMS_DB)) return 0;
  const due = (ended: EndedStream) => nowMs - ended.endedAtMs >= retentionMs;
  const streams = listEndedStreams(store);
  const records = store.hasDatabase(ENDED_STREAM_RECORDS_DB) ? store.database(ENDED_STREAM_RECORDS_DB) : undefined;
  const oldRecord = (txn: ReadTxn, ended: EndedStream) => {
    if (!records) return false;
    const prefix = prefixOf(ended.tableName, ended.label);
    const first = [...txn.cursor(records, { start: prefix, end: prefixEnd(prefix), limit: 1 })][0];
    return first !== undefined && nowMs - decodeStreamRecord(first.value).timeMs >= retentionMs;
  };
  if (!streams.some(due) && !store.read((txn) => streams.some((s) => oldRecord(txn, s)))) return 0;
  return store.write((txn) => {
    let deleted = 0;
    for (const ended of streams) {
      const prefix = prefixOf(ended.tableName, ended.label);
      if (records) {
        const doomed: Uint8Array[] = [];
        for (const { key, value } of txn.cursor(records, { start: prefix, end: prefixEnd(prefix) })) {
          if (deleted + doomed.length >= MAX_TRIMMED_PER_PASS) break;
          if (!due(ended) && nowMs - decodeStreamRecord(value).timeMs < retentionMs) continue;
          doomed.push(Uint8Array.prototype.slice.call(key));
        }
        for (const key of doomed) txn.delete(records, key);
        deleted += doomed.length;
      }
      // Dropped once all its records are gone (a pass that hit its cap leaves the rest to the next).
      if (due(ended) && deleted < MAX_TRIMMED_PER_PASS) txn.delete(store.database(ENDED_STREAMS_DB), streamKey(ended.tableName, ended.label));
    }
    return deleted;
  });
}

function parseEnded(raw: Uint8Array): EndedStream {
  return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')) as EndedStream;
}

function streamKey(tableName: string, label: string): Uint8Array {
  return Buffer.from(`${tableName}\u0000${label}`, 'utf8');
}

/** The key prefix of a table name's streams (no label), or of one stream's records (with it). */
function prefixOf(tableName: string, label?: string): Uint8Array {
  return Buffer.from(label === undefined ? `${tableName}\u0000` : `${tableName}\u0000${label}\u0000`, 'utf8');
}

function recordKey(tableName: string, label: string, shard: number, seq: number): Uint8Array {
  const prefix = prefixOf(tableName, label);
  const key = new Uint8Array(prefix.length + 4 + SEQUENCE_KEY_BYTES);
  key.set(prefix, 0);
  new DataView(key.buffer).setUint32(prefix.length, shard);
  key.set(encodeSequenceKey(seq), prefix.length + 4);
  return key;
}

/** The first key after every key that starts with `prefix` (every prefix here ends in 0x00). */
function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = Uint8Array.prototype.slice.call(prefix);
  end[end.length - 1] = end[end.length - 1]! + 1;
  return end;
}
