/**
 * UpdateTimeToLive (spec §6.9): enables or disables TTL on a table, stored in its catalog
 * definition. The change takes effect at once (DynamoDB passes through ENABLING/DISABLING for up to
 * an hour and refuses a second change within the hour; edgetable does neither: a device has no
 * fleet to reconfigure).
 *
 * edgetable extension: `HideExpiredItems` (boolean, default true) decides whether reads skip
 * items that have expired but are not yet deleted; DynamoDB returns them.
 */
import { ResourceNotFoundException, SerializationException, ValidationException } from '../model/errors.js';
import { MAX_TTL_ATTRIBUTE_NAME_CHARS } from '../model/limits.js';
import type { TableDefinition } from '../table/table-definition.js';
import type { EngineContext } from './engine-context.js';
import { ConstraintErrors, optionalBoolean } from './request-checks.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';
import { expiryIndexDb } from '../partition/database-names.js';

export const TTL_ALREADY_ENABLED = 'TimeToLive is already enabled';
export const TTL_ALREADY_DISABLED = 'TimeToLive is already disabled';
/** Observed prefix; the suffix naming the current attribute is unverified. */
export const ttlOtherAttribute = (current: string) => `TimeToLive is active on a different AttributeName: current AttributeName is ${current}`;

export function updateTimeToLive(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.UpdateTimeToLive, request);
  const tableName = readTableName(req.TableName);
  const spec = readSpecification(req.TimeToLiveSpecification);
  const hide = optionalBoolean(req.HideExpiredItems, 'HideExpiredItems');
  const table = ctx.catalog.find(tableName);
  if (!table) throw new ResourceNotFoundException(`Requested resource not found: Table: ${tableName} not found`);
  const current = table.def.TimeToLive;
  let next: TableDefinition;
  if (spec.Enabled) {
    if (current && current.AttributeName !== spec.AttributeName) throw new ValidationException(ttlOtherAttribute(current.AttributeName));
    if (current && (hide === undefined || hide === current.hideExpired)) throw new ValidationException(TTL_ALREADY_ENABLED);
    // The expiry index stays valid across a change of HideExpiredItems only.
    next = { ...table.def, TimeToLive: { AttributeName: spec.AttributeName, hideExpired: hide ?? true, ...(current?.indexed ? { indexed: true } : {}) } };
  } else {
    if (!current) throw new ValidationException(TTL_ALREADY_DISABLED);
    if (current.AttributeName !== spec.AttributeName) throw new ValidationException(ttlOtherAttribute(current.AttributeName));
    const { TimeToLive: _, ...rest } = table.def;
    next = rest;
  }
  ctx.store.write((txn) => {
    ctx.catalog.replace(txn, table, next);
    // The expiry index (ttl/expiry-index.ts) lives while TTL is enabled; the sweeper fills it.
    const index = expiryIndexDb(tableName);
    if (next.TimeToLive) txn.count(ctx.store.database(index));
    else ctx.store.dropDatabase(index);
  });
  ctx.catalog.reload();
  if (next.TimeToLive && !next.TimeToLive.indexed) ctx.background.startSweep();
  return { TimeToLiveSpecification: { Enabled: spec.Enabled, AttributeName: spec.AttributeName } };
}

function readSpecification(raw: unknown): { Enabled: boolean; AttributeName: string } {
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
  return { Enabled: enabled!, AttributeName: name as string };
}
