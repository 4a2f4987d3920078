/**
 * edgetable's `verify` (not a DynamoDB operation): every secondary index recomputed from its base
 * table and compared with what is stored. `Differences` is the sum of missing, extra and different
 * entries over all indexes checked; 0 means every index equals its recomputation.
 */
import { verifyTableIndexes, type IndexVerification } from '../table/verify-indexes.js';
import type { EngineContext } from './engine-context.js';

export type VerifyResult = { Indexes: IndexVerification[]; Differences: number };

export function verify(ctx: EngineContext, tableName?: string): VerifyResult {
  const tables = tableName === undefined ? ctx.catalog.all() : [ctx.catalog.require(tableName)];
  const indexes = ctx.store.read((txn) => tables.flatMap((t) => verifyTableIndexes(txn, t)));
  return { Indexes: indexes, Differences: indexes.reduce((n, ix) => n + ix.Missing + ix.Extra + ix.Different, 0) };
}
