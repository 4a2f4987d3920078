/**
 * DescribeTimeToLive (spec §6.9): `{TimeToLiveDescription: {TimeToLiveStatus, AttributeName?}}`;
 * a table without TTL reports `{"TimeToLiveStatus":"DISABLED"}` only. Changes apply at once, so
 * the status is never ENABLING or DISABLING.
 */
import { ResourceNotFoundException } from '../../model/errors.js';
import type { EngineContext } from '../engine-context.js';
import { readTableName } from '../request/table-name.js';
import type { DescribeTimeToLiveOutput } from '../../api/table-operations.js';
import { checkRequest } from '../request/schema/check-request.js';
import { REQUEST_SCHEMAS } from '../request/schema/schemas.js';

export function describeTimeToLive(ctx: EngineContext, request: unknown): DescribeTimeToLiveOutput {
  const tableName = readTableName(checkRequest(REQUEST_SCHEMAS.DescribeTimeToLive, request).TableName);
  const table = ctx.catalog.find(tableName);
  if (!table) throw new ResourceNotFoundException(`Requested resource not found: Table: ${tableName} not found`);
  const ttl = table.def.TimeToLive;
  return {
    TimeToLiveDescription: ttl ? { TimeToLiveStatus: 'ENABLED', AttributeName: ttl.AttributeName } : { TimeToLiveStatus: 'DISABLED' },
  };
}
