/**
 * ListStreams: the latest stream of every table (or of one), then the streams of deleted tables
 * still kept (stream/ended-streams.ts), paged by stream ARN.
 */
import { ResourceNotFoundException } from '../model/errors.js';
import type { EngineContext } from '../ops/engine-context.js';
import { ConstraintErrors, checkName, requestObject } from '../ops/request/request-checks.js';
import { listEndedStreams } from '../stream/ended-streams.js';
import { endedStream, latestStream } from './stream-handle.js';
import { checkLimit, checkString } from './streams-request.js';

const MAX_LIMIT = 100;

export function listStreams(ctx: EngineContext, request: unknown) {
  const req = requestObject(request);
  const errors = new ConstraintErrors();
  if (req.TableName !== undefined) checkName(errors, req.TableName, 'tableName');
  const limit = checkLimit(errors, req.Limit, MAX_LIMIT) ?? MAX_LIMIT;
  const start = checkString(errors, req.ExclusiveStartStreamArn, 'exclusiveStartStreamArn', 37, 1024, false);
  errors.throwIfAny();
  const name = req.TableName as string | undefined;
  const ended = listEndedStreams(ctx.store, name).map(endedStream);
  if (name !== undefined && !ctx.catalog.find(name) && ended.length === 0) throw new ResourceNotFoundException(`Requested resource not found: Table: ${name} not found`);
  const live = ctx.catalog
    .all()
    .filter((t) => name === undefined || t.name === name)
    .flatMap((t) => latestStream(t) ?? []);
  const streams = [...live, ...ended].map((s) => ({ StreamArn: s.arn, TableName: s.tableName, StreamLabel: s.label }));
  const from = start === undefined ? 0 : streams.findIndex((s) => s.StreamArn === start) + 1;
  const page = streams.slice(from, from + limit);
  return {
    Streams: page,
    ...(from + limit < streams.length ? { LastEvaluatedStreamArn: page[page.length - 1]!.StreamArn } : {}),
  };
}
