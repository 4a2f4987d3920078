/**
 * Which stream an ARN names and which change records belong to it. A table has at most one
 * stream at a time; the latest one (LatestStreamLabel) stays readable by its ARN after it is
 * disabled until its records are trimmed. Older streams of the table are not served.
 *
 * A change record belongs to the stream when it was written while the stream was enabled:
 * timeMs in [enable time, disable time]. The change log also holds records written for sync
 * while no stream was enabled; the Streams API never shows those.
 */
import { ResourceNotFoundException } from '../model/errors.js';
import type { EngineContext } from '../ops/engine-context.js';
import type { StreamViewType } from '../table/table-definition.js';
import type { Table } from '../table/table.js';
import { labelTimeMs, parseStreamArn, streamArn } from './stream-names.js';

export type StreamHandle = {
  readonly table: Table;
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
    table,
    arn,
    label,
    region: parseStreamArn(arn)?.region ?? '',
    viewType,
    enabled,
    fromMs: labelTimeMs(label),
    untilMs: enabled ? Infinity : (def.LatestStreamEnd?.disabledAtMs ?? Infinity),
  };
}

/** The stream an ARN names; ResourceNotFoundException when there is no such (current) stream. */
export function resolveStream(ctx: EngineContext, arn: string): StreamHandle {
  const parsed = parseStreamArn(arn);
  const table = parsed ? ctx.catalog.find(parsed.tableName) : undefined;
  const stream = table ? latestStream(table) : undefined;
  if (!stream || stream.arn !== arn) throw new ResourceNotFoundException(`Requested resource not found: Stream: ${arn} not found`);
  return stream;
}

export function inStreamWindow(stream: StreamHandle, timeMs: number): boolean {
  return timeMs >= stream.fromMs && timeMs <= stream.untilMs;
}
