/**
 * UpdateTable's StreamSpecification: enable a stream (with a new LatestStreamLabel) or disable it.
 * Enabling starts logging with the next write; disabling stops it (records already written stay
 * readable by the old stream's ARN until trimmed: LatestStreamEnd keeps its view type and end). A synced table keeps logging either way (change-log-writer.ts).
 */
import { INVALID_PARAMETERS, ValidationException } from '../model/errors.js';
import type { StreamViewType, TableDefinition } from '../table/table-definition.js';

const VIEW_TYPES: readonly string[] = ['NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES', 'KEYS_ONLY'];

export function applyStreamUpdate(def: TableDefinition, raw: unknown, nowMs: number): TableDefinition {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ValidationException(`${INVALID_PARAMETERS}StreamSpecification must be an object`);
  const spec = raw as { StreamEnabled?: unknown; StreamViewType?: unknown };
  if (typeof spec.StreamEnabled !== 'boolean') {
    throw new ValidationException("1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null");
  }
  if (spec.StreamViewType !== undefined && !VIEW_TYPES.includes(spec.StreamViewType as string)) {
    throw new ValidationException(
      `1 validation error detected: Value '${String(spec.StreamViewType)}' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]`,
    );
  }
  const enabled = def.StreamSpecification?.StreamEnabled === true;
  if (spec.StreamEnabled) {
    if (enabled) throw new ValidationException(`Table already has an enabled stream: TableName: ${def.TableName}`);
    if (spec.StreamViewType === undefined) throw new ValidationException(`${INVALID_PARAMETERS}You must specify a StreamViewType when enabling a stream`);
    const { LatestStreamEnd: _e, ...base } = def;
    return {
      ...base,
      StreamSpecification: { StreamEnabled: true, StreamViewType: spec.StreamViewType as StreamViewType },
      LatestStreamLabel: new Date(nowMs).toISOString().replace('Z', ''),
    };
  }
  if (!enabled) throw new ValidationException(`Table already has stream disabled: TableName: ${def.TableName}`);
  const { StreamSpecification: spec0, ...rest } = def;
  return { ...rest, LatestStreamEnd: { StreamViewType: spec0!.StreamViewType!, disabledAtMs: nowMs } };
}
