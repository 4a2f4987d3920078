/**
 * UpdateTimeToLive (spec §6.9): enables or disables TTL on a table, stored in its catalog
 * definition. The change takes effect at once (DynamoDB passes through ENABLING/DISABLING for up to
 * an hour and refuses a second change within the hour; edgetable does neither: a device has no
 * fleet to reconfigure).
 *
 * edgetable extension: `HideExpiredItems` (boolean, default true) decides whether reads skip
 * items that have expired but are not yet deleted; DynamoDB returns them.
 */
import { ResourceNotFoundException, ValidationException } from '../../model/errors.js';
import type { TableDefinition } from '../../table/table-definition.js';
import type { EngineContext } from '../engine-context.js';
import { parseUpdateTimeToLiveRequest } from '../request/update-time-to-live-request.js';
import { expiryIndexDb } from '../../partition/database-names.js';

export const TTL_ALREADY_ENABLED = 'TimeToLive is already enabled';
export const TTL_ALREADY_DISABLED = 'TimeToLive is already disabled';
/** Observed prefix; the suffix naming the current attribute is unverified. */
export const ttlOtherAttribute = (current: string) => `TimeToLive is active on a different AttributeName: current AttributeName is ${current}`;

export function updateTimeToLive(ctx: EngineContext, request: unknown) {
  const { tableName, specification: spec, hideExpired: hide } = parseUpdateTimeToLiveRequest(request);
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
