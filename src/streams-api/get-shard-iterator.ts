/**
 * GetShardIterator: a position in one shard of a stream.
 *   TRIM_HORIZON          the oldest record still kept
 *   LATEST                just after the last record written (only later records are read)
 *   AT_SEQUENCE_NUMBER    at SequenceNumber
 *   AFTER_SEQUENCE_NUMBER just after SequenceNumber
 * A sequence number whose record was trimmed gets TrimmedDataAccessException; one past the end of
 * the shard a ValidationException.
 */
import { ResourceNotFoundException, ValidationException } from '../model/errors.js';
import type { EngineContext } from '../ops/engine-context.js';
import { ConstraintErrors, checkEnum, requestObject } from '../ops/request/request-checks.js';
import { encodeShardIterator } from './shard-iterator.js';
import { resolveStream } from './stream-handle.js';
import { parseSequenceNumber, parseShardId } from './stream-names.js';
import { findStreamShard } from './stream-shards.js';
import { TrimmedDataAccessException } from './streams-errors.js';
import { checkString } from './streams-request.js';

const ITERATOR_TYPES = ['TRIM_HORIZON', 'LATEST', 'AT_SEQUENCE_NUMBER', 'AFTER_SEQUENCE_NUMBER'] as const;

export function getShardIterator(ctx: EngineContext, request: unknown) {
  const req = requestObject(request);
  const errors = new ConstraintErrors();
  const arn = checkString(errors, req.StreamArn, 'streamArn', 37, 1024, true);
  const shardId = checkString(errors, req.ShardId, 'shardId', 28, 65, true);
  if (req.ShardIteratorType === undefined || req.ShardIteratorType === null) errors.addNull('shardIteratorType');
  else checkEnum(errors, req.ShardIteratorType, 'shardIteratorType', ITERATOR_TYPES);
  const sequence = checkString(errors, req.SequenceNumber, 'sequenceNumber', 21, 40, false);
  errors.throwIfAny();
  const type = req.ShardIteratorType as (typeof ITERATOR_TYPES)[number];
  const stream = resolveStream(ctx, arn!);
  const shardNumber = parseShardId(shardId!, stream.label);
  const shard = shardNumber === undefined ? undefined : findStreamShard(ctx.store, stream, shardNumber);
  if (!shard) throw new ResourceNotFoundException(`Requested resource not found: Shard does not exist`);

  let seq: number;
  if (type === 'TRIM_HORIZON') seq = shard.firstSeq;
  else if (type === 'LATEST') seq = shard.lastSeq + 1;
  else {
    if (sequence === undefined) throw new ValidationException(`Must specify a SequenceNumber for ShardIteratorType ${type}`);
    const n = parseSequenceNumber(sequence);
    if (n === undefined || n < 1 || n > shard.lastSeq) throw new ValidationException(`Invalid SequenceNumber ${sequence} for shard ${shardId}`);
    seq = type === 'AT_SEQUENCE_NUMBER' ? n : n + 1;
    if (seq < shard.firstSeq) {
      throw new TrimmedDataAccessException(`Attempted to access a sequence number ${sequence} that is beyond the trim horizon of shard ${shardId}`);
    }
  }
  return { ShardIterator: encodeShardIterator({ arn: stream.arn, shard: shard.shard, seq }, ctx.now()) };
}
