/**
 * BatchExecuteStatement: up to 25 statements, all reads (SELECTs by full primary key, i.e.
 * GetItem) or all writes (INSERT, UPDATE, DELETE), each run on its own as ExecuteStatement runs
 * it; a statement that fails gets an `Error` entry ({Code, Message}, and Item when its condition
 * failed under the statement's ReturnValuesOnConditionCheckFailure ALL_OLD) in its place and the
 * others still run, as DynamoDB does. RETURNING puts the item in the statement's `Item`. ConsumedCapacity sums the statements' per table.
 */
import { ConditionalCheckFailedException, EdgetableError, ValidationException } from '../model/errors.js';
import { StorageError } from '../storage/storage-error.js';
import type { EngineContext } from '../ops/engine-context.js';
import { ConstraintErrors, checkEnum, requestObject } from '../ops/request/request-checks.js';
import { runCompiled } from './execute-statement.js';
import { prepareStatement, type PreparedStatement } from './prepare-statement.js';
import { readStatementList } from './statement-list.js';
import { sumConsumedCapacity } from './sum-consumed-capacity.js';

export const MAX_BATCH_STATEMENTS = 25;

/** DynamoDB's BatchStatementError codes by exception name. */
const ERROR_CODES: Readonly<Record<string, string>> = {
  ValidationException: 'ValidationError',
  ConditionalCheckFailedException: 'ConditionalCheckFailed',
  DuplicateItemException: 'DuplicateItem',
  ResourceNotFoundException: 'ResourceNotFound',
  ProvisionedThroughputExceededException: 'ProvisionedThroughputExceeded',
  ThrottlingException: 'ThrottlingError',
  ItemCollectionSizeLimitExceededException: 'ItemCollectionSizeLimitExceeded',
  TransactionConflictException: 'TransactionConflict',
  RequestLimitExceeded: 'RequestLimitExceeded',
};

export function batchExecuteStatement(ctx: EngineContext, request: unknown) {
  const req = requestObject(request);
  const errors = new ConstraintErrors();
  const statements = readStatementList(errors, req.Statements, 'statements', MAX_BATCH_STATEMENTS);
  checkEnum(errors, req.ReturnConsumedCapacity, 'returnConsumedCapacity', ['INDEXES', 'TOTAL', 'NONE']);
  errors.throwIfAny();
  const prepared = statements.map((s) => attempt(() => prepareStatement(ctx, s.Statement as string, s.Parameters as unknown[] | undefined)));
  const kinds = new Set(prepared.flatMap((p) => (p.ok ? [p.value.statement.kind === 'select' ? 'read' : 'write'] : [])));
  if (kinds.size > 1) throw new ValidationException('Batch must only contain either read or write statements, not both');
  const options = req.ReturnConsumedCapacity !== undefined ? { ReturnConsumedCapacity: req.ReturnConsumedCapacity } : {};
  const capacities: unknown[] = [];
  const Responses = prepared.map((p, i) => {
    const tableName = p.ok ? tableOf(p.value) : undefined;
    const outcome = p.ok ? attempt(() => runOne(ctx, p.value, options, statements[i]!)) : p;
    if (!outcome.ok) return { Error: statementError(outcome.error), ...(tableName ? { TableName: tableName } : {}) };
    capacities.push(outcome.value.ConsumedCapacity);
    // The item a SELECT read, or the one an UPDATE or DELETE returned with RETURNING.
    const items = outcome.value.Items as unknown[] | undefined;
    return { TableName: tableName, ...(items?.[0] ? { Item: items[0] } : {}) };
  });
  const consumed = sumConsumedCapacity(capacities);
  return { Responses, ...(consumed.length > 0 ? { ConsumedCapacity: consumed } : {}) };
}

function runOne(ctx: EngineContext, p: PreparedStatement, options: Record<string, unknown>, raw: Record<string, unknown>): Record<string, unknown> {
  if (p.statement.kind === 'select' && p.compiled.op !== 'GetItem') {
    throw new ValidationException('Select statements within BatchExecuteStatement must specify the primary key in the where clause.');
  }
  return runCompiled(ctx, p.compiled, options, {
    ...(raw.ConsistentRead !== undefined ? { ConsistentRead: raw.ConsistentRead } : {}),
    ...(raw.ReturnValuesOnConditionCheckFailure !== undefined ? { ReturnValuesOnConditionCheckFailure: raw.ReturnValuesOnConditionCheckFailure } : {}),
  });
}

/** A BatchStatementError: Code, Message, and the item when a condition failed under ALL_OLD. */
function statementError(error: EdgetableError): Record<string, unknown> {
  const item = error instanceof ConditionalCheckFailedException ? error.Item : undefined;
  return { Code: ERROR_CODES[error.name] ?? 'InternalServerError', Message: error.message, ...(item ? { Item: item } : {}) };
}

function tableOf(p: PreparedStatement): string | undefined {
  const name = p.compiled.request.TableName;
  return typeof name === 'string' ? name : undefined;
}

type Attempt<T> = { ok: true; value: T } | { ok: false; error: EdgetableError };

/** Runs `fn`; DynamoDB errors become a failed attempt, anything else (bugs, storage) propagates. */
function attempt<T>(fn: () => T): Attempt<T> {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    if (error instanceof EdgetableError && !(error instanceof StorageError)) return { ok: false, error };
    throw error;
  }
}
