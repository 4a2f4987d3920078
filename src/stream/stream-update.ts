/**
 * UpdateTable's StreamSpecification: enable a stream (with a new LatestStreamLabel) or disable it.
 * Enabling starts logging with the next write; disabling stops it (records already written stay
 * readable by the old stream's ARN until trimmed: LatestStreamEnd keeps its view type and end). A synced table keeps logging either way (change-log-writer.ts).
 */
import { INVALID_PARAMETERS, ValidationException } from '../model/errors.js';
import type { TableDefinition } from '../table/table-definition.js';

/**
 * `spec`: the request's StreamSpecification as UpdateTable's parse step read it (UpdateTable throws
 * its refusal of a null one, or of a null StreamViewType, just before this call).
 */
export function applyStreamUpdate(def: TableDefinition, spec: NonNullable<TableDefinition['StreamSpecification']>, nowMs: number): TableDefinition {
  const enabled = def.StreamSpecification?.StreamEnabled === true;
  if (spec.StreamEnabled) {
    if (enabled) throw new ValidationException(`Table already has an enabled stream: TableName: ${def.TableName}`);
    if (spec.StreamViewType === undefined) throw new ValidationException(`${INVALID_PARAMETERS}You must specify a StreamViewType when enabling a stream`);
    const { LatestStreamEnd: _e, ...base } = def;
    return {
      ...base,
      StreamSpecification: { StreamEnabled: true, StreamViewType: spec.StreamViewType },
      LatestStreamLabel: new Date(nowMs).toISOString().replace('Z', ''),
    };
  }
  if (!enabled) throw new ValidationException(`Table already has stream disabled: TableName: ${def.TableName}`);
  const { StreamSpecification: spec0, ...rest } = def;
  return { ...rest, LatestStreamEnd: { StreamViewType: spec0!.StreamViewType!, disabledAtMs: nowMs } };
}
