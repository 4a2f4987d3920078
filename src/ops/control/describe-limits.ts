/**
 * DescribeLimits: the provisioned-capacity quotas, as DynamoDB reports its default ones for an
 * account in a region (spec §5.6: 40,000 RCU and WCU per table, table and its GSIs together;
 * 80,000 per account). A device has no account to raise them for, so these are always the
 * defaults; DynamoDB Local answers the same. A CreateTable or UpdateTable asking one table or
 * index for more is refused as DynamoDB refuses it (throughput-limits.ts).
 */
import type { EngineContext } from '../engine-context.js';
import { checkRequest } from '../request/schema/check-request.js';
import { REQUEST_SCHEMAS } from '../request/schema/schemas.js';

export const DEFAULT_LIMITS = {
  AccountMaxReadCapacityUnits: 80_000,
  AccountMaxWriteCapacityUnits: 80_000,
  TableMaxReadCapacityUnits: 40_000,
  TableMaxWriteCapacityUnits: 40_000,
} as const;

export function describeLimits(_ctx: EngineContext, request: unknown) {
  checkRequest(REQUEST_SCHEMAS.DescribeLimits, request);
  return { ...DEFAULT_LIMITS };
}
