/**
 * Which stream an ARN names and which change records belong to it. A table has at most one
 * stream at a time; the latest one (LatestStreamLabel) stays readable by its ARN after it is
 * disabled until its records are trimmed. Older streams of a live table are not served. The
 * stream of a deleted table is an ended stream (stream/ended-streams.ts), served, disabled,
 * until the retention after the delete has passed.
 *
 * A change record belongs to the stream when it was written while the stream was enabled:
 * timeMs in [enable time, disable time]. The change log also holds records written for sync
 * while no stream was enabled; the Streams API never shows those.
 */
import type { KeySchemaElement } from '../model/key-schema.js';
import { ResourceNotFoundException } from '../model/errors.js';
import type { EngineContext } from '../ops/engine-context.js';
import { findEndedStream, type EndedStream } from '../stream/ended-streams.js';
import type { StreamViewType } from '../table/table-definition.js';
import type { Table } from '../table/table.js';
import { labelTimeMs, parseStreamArn, streamArn } from './stream-names.js';

/** Where a stream's shards and records are: its table's change log, or the ended streams. */
export type StreamSource = { readonly kind: 'table'; readonly table: Table } | { readonly kind: 'ended'; readonly ended: EndedStream };

export type StreamHandle = {
  readonly source: StreamSource;
  readonly tableName: string;
  readonly keySchema: readonly KeySchemaElement[];
  readonly arn: string;
  readonly label: string;
  readonly region: string;
  readonly viewType: StreamViewType;
  readonly enabled: boolean;
  readonly fromMs: number;
  /** When the stream was disabled; Infinity while enabled. */
  readonly untilMs: number;
};

/** The table's latest stream, or undefined when it never had one. */
export function latestStream(table: Table): StreamHandle | undefined {
  const def = table.def;
  const label = def.LatestStreamLabel;
  if (label === undefined) return undefined;
  const spec = def.StreamSpecification;
  const enabled = spec?.StreamEnabled === true;
  const viewType = enabled ? spec.StreamViewType : def.LatestStreamEnd?.StreamViewType;
  if (viewType === undefined) return undefined;
  const arn = streamArn(def.TableArn, label);
  return {
    source: { kind: 'table', table },
    tableName: table.name,
    keySchema: def.KeySchema,
    arn,
    label,
    region: parseStreamArn(arn)?.region ?? '',
    viewType,
    enabled,
    fromMs: labelTimeMs(label),
    untilMs: enabled ? Infinity : (def.LatestStreamEnd?.disabledAtMs ?? Infinity),
  };
}

/** The stream of a deleted table, disabled since its table's delete (or before). */
export function endedStream(ended: EndedStream): StreamHandle {
  const arn = streamArn(ended.tableArn, ended.label);
  return {
    source: { kind: 'ended', ended },
    tableName: ended.tableName,
    keySchema: ended.keySchema,
    arn,
    label: ended.label,
    region: parseStreamArn(arn)?.region ?? '',
    viewType: ended.viewType,
    enabled: false,
    fromMs: labelTimeMs(ended.label),
    untilMs: ended.untilMs,
  };
}

/**
 * The stream an ARN names: the latest stream of its table, or an ended stream of a deleted table
 * of that name; ResourceNotFoundException when there is no such stream.
 */
export function resolveStream(ctx: EngineContext, arn: string): StreamHandle {
  const parsed = parseStreamArn(arn);
  const table = parsed ? ctx.catalog.find(parsed.tableName) : undefined;
  const live = table ? latestStream(table) : undefined;
  if (live && live.arn === arn) return live;
  const ended = parsed ? findEndedStream(ctx.store, parsed.tableName, parsed.label) : undefined;
  const stream = ended ? endedStream(ended) : undefined;
  if (!stream || stream.arn !== arn) throw new ResourceNotFoundException(`Requested resource not found: Stream: ${arn} not found`);
  return stream;
}

export function inStreamWindow(stream: StreamHandle, timeMs: number): boolean {
  return timeMs >= stream.fromMs && timeMs <= stream.untilMs;
}
