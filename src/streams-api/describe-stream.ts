/** DescribeStream: the stream's status, view type, key schema and shards, paged by shard id. */
import type { EngineContext } from '../ops/engine-context.js';
import { ConstraintErrors, requestObject } from '../ops/request/request-checks.js';
import { resolveStream } from './stream-handle.js';
import { formatSequenceNumber, shardIdOf } from './stream-names.js';
import { listStreamShards } from './stream-shards.js';
import { checkLimit, checkString } from './streams-request.js';

const MAX_LIMIT = 100;

export function describeStream(ctx: EngineContext, request: unknown) {
  const req = requestObject(request);
  const errors = new ConstraintErrors();
  const arn = checkString(errors, req.StreamArn, 'streamArn', 37, 1024, true);
  const limit = checkLimit(errors, req.Limit, MAX_LIMIT) ?? MAX_LIMIT;
  const start = checkString(errors, req.ExclusiveStartShardId, 'exclusiveStartShardId', 28, 65, false);
  errors.throwIfAny();
  const stream = resolveStream(ctx, arn!);
  const shards = listStreamShards(ctx.store, stream).map((s) => ({
    ShardId: shardIdOf(s.shard, stream.label),
    ...(s.parent !== undefined ? { ParentShardId: shardIdOf(s.parent, stream.label) } : {}),
    SequenceNumberRange: {
      StartingSequenceNumber: formatSequenceNumber(s.firstSeq),
      ...(!s.open && s.lastSeq > 0 ? { EndingSequenceNumber: formatSequenceNumber(s.lastSeq) } : {}),
    },
  }));
  // Shard ids sort as their shard numbers (zero-padded), parents before their children.
  const from = start === undefined ? 0 : shards.filter((s) => s.ShardId <= start).length;
  const page = shards.slice(from, from + limit);
  return {
    StreamDescription: {
      StreamArn: stream.arn,
      StreamLabel: stream.label,
      StreamStatus: stream.enabled ? 'ENABLED' : 'DISABLED',
      StreamViewType: stream.viewType,
      CreationRequestDateTime: stream.fromMs / 1000,
      TableName: stream.tableName,
      KeySchema: stream.keySchema,
      Shards: page,
      ...(from + limit < shards.length ? { LastEvaluatedShardId: page[page.length - 1]!.ShardId } : {}),
    },
  };
}
