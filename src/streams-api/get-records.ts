/**
 * GetRecords: up to Limit (default and most 1,000) records of the stream from the iterator's
 * position, at most 1 MB of stored records, in sequence order, and a NextShardIterator; none when
 * the shard is closed and read to its end (the reader moves on to the shard's children).
 *
 * Records written while the stream was not enabled (the change log also serves sync) are passed
 * over; on a disabled stream, the first record written after it was disabled ends the shard. A
 * position whose records were trimmed (retention, or dropped unsent by sync's outbox
 * policy: a gap record) gets TrimmedDataAccessException; a gap met after some records ends the
 * page before it, so the reader keeps what it got.
 */
import { ResourceNotFoundException } from '../model/errors.js';
import type { EngineContext } from '../ops/engine-context.js';
import { ConstraintErrors, requestObject } from '../ops/request/request-checks.js';
import { decodeStreamRecord } from '../stream/change-record.js';
import { decodeShardIterator, encodeShardIterator } from './shard-iterator.js';
import { inStreamWindow, resolveStream } from './stream-handle.js';
import { shardIdOf } from './stream-names.js';
import { streamRecordOf } from './stream-record.js';
import { findStreamShard, shardRecords } from './stream-shards.js';
import { TrimmedDataAccessException } from './streams-errors.js';
import { checkLimit, checkString } from './streams-request.js';

const MAX_LIMIT = 1000;
const MAX_PAGE_BYTES = 1024 * 1024;
/** Records passed over (outside the stream's window) per call at most, so a call stays bounded. */
const MAX_SCANNED = 10_000;

export function getRecords(ctx: EngineContext, request: unknown) {
  const req = requestObject(request);
  const errors = new ConstraintErrors();
  const iterator = checkString(errors, req.ShardIterator, 'shardIterator', 1, 2048, true);
  const limit = checkLimit(errors, req.Limit, MAX_LIMIT) ?? MAX_LIMIT;
  errors.throwIfAny();
  const now = ctx.now();
  const position = decodeShardIterator(iterator!, now);
  const stream = resolveStream(ctx, position.arn);
  const shard = findStreamShard(ctx.store, stream, position.shard);
  if (!shard) throw new ResourceNotFoundException('Requested resource not found: Shard does not exist');
  const trimmed = (): TrimmedDataAccessException =>
    new TrimmedDataAccessException(`Attempted to access a record that is beyond the trim horizon of shard ${shardIdOf(shard.shard, stream.label)}`);
  if (position.seq < shard.firstSeq && position.seq <= shard.lastSeq) throw trimmed();

  const records: ReturnType<typeof streamRecordOf>[] = [];
  let next = position.seq;
  let pastEnd = false;
  ctx.store.read((txn) => {
    let bytes = 0;
    let scanned = 0;
    for (const { seq, value } of shardRecords(ctx.store, txn, stream, shard.shard, position.seq)) {
      const record = decodeStreamRecord(value);
      if (record.kind === 'gap') {
        if (records.length === 0) throw trimmed();
        return;
      }
      if (seq !== next && records.length === 0 && scanned === 0) throw trimmed();
      if (records.length >= limit || scanned >= MAX_SCANNED || (records.length > 0 && bytes + value.length > MAX_PAGE_BYTES)) return;
      if (record.timeMs > stream.untilMs) {
        // Written after the stream was disabled (for sync): the stream's part of the shard ended.
        pastEnd = true;
        return;
      }
      scanned += 1;
      next = seq + 1;
      // A hub's version-only record (change-record.ts) changed no item: not a stream event.
      if (!inStreamWindow(stream, record.timeMs) || record.versionOnly) continue;
      records.push(streamRecordOf(record, shard.shard, seq, stream.viewType, stream.region));
      bytes += value.length;
    }
  });
  const ended = pastEnd || (!shard.open && next > shard.lastSeq);
  return {
    Records: records,
    ...(ended ? {} : { NextShardIterator: encodeShardIterator({ arn: stream.arn, shard: shard.shard, seq: next }, now) }),
  };
}
