/**
 * The DynamoDB Streams API (X-Amz-Target `DynamoDBStreams_20120810.<name>`) by operation name,
 * over the same change log that sync reads (stream/). Like ops/, operations take and return
 * plain request/response objects and never know the wire.
 */
import type { EngineContext } from '../ops/engine-context.js';
import { describeStream } from './describe-stream.js';
import { getRecords } from './get-records.js';
import { getShardIterator } from './get-shard-iterator.js';
import { listStreams } from './list-streams.js';

export const STREAMS_TARGET_PREFIX = 'DynamoDBStreams_20120810.';

export const STREAMS_OPERATIONS = {
  ListStreams: listStreams,
  DescribeStream: describeStream,
  GetShardIterator: getShardIterator,
  GetRecords: getRecords,
} as const satisfies Record<string, (ctx: EngineContext, request: Record<string, unknown>) => unknown>;

export type StreamsOperationName = keyof typeof STREAMS_OPERATIONS;
