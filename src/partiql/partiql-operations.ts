/**
 * The PartiQL operations by their DynamoDB names (X-Amz-Target `DynamoDB_20120810.<name>`). They
 * sit above ops/: each statement compiles into an ordinary operation request and runs through it.
 */
import type { EngineContext } from '../ops/engine-context.js';
import { batchExecuteStatement } from './batch-execute-statement.js';
import { executeStatement } from './execute-statement.js';
import { executeTransaction } from './execute-transaction.js';

export const PARTIQL_OPERATIONS = {
  ExecuteStatement: executeStatement,
  BatchExecuteStatement: batchExecuteStatement,
  ExecuteTransaction: executeTransaction,
} as const satisfies Record<string, (ctx: EngineContext, request: Record<string, unknown>) => unknown>;

export type PartiqlOperationName = keyof typeof PARTIQL_OPERATIONS;
