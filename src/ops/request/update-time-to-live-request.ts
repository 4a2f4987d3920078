/**
 * UpdateTimeToLive's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the members are read, in their fixed order, into a frozen, typed request.
 *
 * edgetable extension: `HideExpiredItems` (boolean) decides whether reads skip items that have
 * expired but are not yet deleted; undefined when not given (the operation decides its default).
 */
import { SerializationException } from '../../model/errors.js';
import { MAX_TTL_ATTRIBUTE_NAME_CHARS } from '../../model/limits.js';
import { ConstraintErrors, optionalBoolean } from './request-checks.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export type TimeToLiveSpecification = { readonly Enabled: boolean; readonly AttributeName: string };

export type UpdateTimeToLiveRequest = {
  readonly tableName: string;
  readonly specification: TimeToLiveSpecification;
  readonly hideExpired: boolean | undefined;
};

export function parseUpdateTimeToLiveRequest(request: unknown): UpdateTimeToLiveRequest {
  const req = checkRequest(REQUEST_SCHEMAS.UpdateTimeToLive, request);
  const tableName = readTableName(req.TableName);
  const specification = readSpecification(req.TimeToLiveSpecification);
  const hideExpired = optionalBoolean(req.HideExpiredItems, 'HideExpiredItems');
  return Object.freeze({ tableName, specification, hideExpired });
}

function readSpecification(raw: unknown): TimeToLiveSpecification {
  const errors = new ConstraintErrors();
  if (raw === undefined || raw === null) {
    errors.addNull('timeToLiveSpecification');
    errors.throwIfAny();
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new SerializationException('Unexpected value type for TimeToLiveSpecification: expected an object');
  }
  const spec = raw as Record<string, unknown>;
  const enabled = spec.Enabled === null ? undefined : optionalBoolean(spec.Enabled, 'Enabled');
  if (enabled === undefined) errors.addNull('timeToLiveSpecification.enabled');
  const name = spec.AttributeName;
  if (name === undefined || name === null) errors.addNull('timeToLiveSpecification.attributeName');
  else if (typeof name !== 'string') throw new SerializationException('Unexpected value type for AttributeName: expected a string');
  else if (name.length < 1) errors.add(name, 'timeToLiveSpecification.attributeName', 'Member must have length greater than or equal to 1');
  else if (name.length > MAX_TTL_ATTRIBUTE_NAME_CHARS) {
    errors.add(name, 'timeToLiveSpecification.attributeName', `Member must have length less than or equal to ${MAX_TTL_ATTRIBUTE_NAME_CHARS}`);
  }
  errors.throwIfAny();
  return Object.freeze({ Enabled: enabled!, AttributeName: name as string });
}
