/**
 * ExecuteTransaction: up to 100 statements run as one TransactGetItems (all SELECTs by full
 * primary key) or one TransactWriteItems (INSERT -> Put, UPDATE -> Update, DELETE -> Delete,
 * EXISTS(SELECT ...) -> ConditionCheck), with ClientRequestToken idempotency from there.
 * A transaction of reads answers one Responses entry per statement ({} for a missing item); one of
 * writes answers `Responses: []`. A cancelled transaction reports an INSERT whose key exists as
 * `DuplicateItem`.
 */
import { TransactionCanceledException, ValidationException } from '../model/errors.js';
import type { EngineContext } from '../ops/engine-context.js';
import { ConstraintErrors, checkEnum, requestObject } from '../ops/request/request-checks.js';
import { transactGetItems } from '../ops/transact/transact-get-items.js';
import { transactWriteItems } from '../ops/transact/transact-write-items.js';
import type { CompiledStatement } from './compile-statement.js';
import { PartiqlStatementError } from './partiql-errors.js';
import { prepareStatement } from './prepare-statement.js';
import { readStatementList } from './statement-list.js';

export const MAX_TRANSACTION_STATEMENTS = 100;

const SELECT_NEEDS_KEY = 'Select statements within ExecuteTransaction must specify the primary key in the where clause.';
const WRITE_ACTIONS: Readonly<Record<string, string>> = { PutItem: 'Put', UpdateItem: 'Update', DeleteItem: 'Delete', ConditionCheck: 'ConditionCheck' };

export function executeTransaction(ctx: EngineContext, request: unknown) {
  const req = requestObject(request);
  const errors = new ConstraintErrors();
  const statements = readStatementList(errors, req.TransactStatements, 'transactStatements', MAX_TRANSACTION_STATEMENTS);
  checkEnum(errors, req.ReturnConsumedCapacity, 'returnConsumedCapacity', ['INDEXES', 'TOTAL', 'NONE']);
  const token = req.ClientRequestToken;
  if (token !== undefined && (typeof token !== 'string' || token.length < 1 || token.length > 36)) {
    errors.add(token, 'clientRequestToken', 'Member must have length less than or equal to 36');
  }
  errors.throwIfAny();
  const compiled = statements.map((s, i) => prepareInTransaction(ctx, s, i));
  const options = req.ReturnConsumedCapacity !== undefined ? { ReturnConsumedCapacity: req.ReturnConsumedCapacity } : {};
  const reads = compiled.filter((c) => c.op === 'GetItem' || c.op === 'Query' || c.op === 'Scan');
  if (reads.length === compiled.length) {
    // The SDK fills ClientRequestToken in on every call (an idempotency token); reads ignore it.
    const r = transactGetItems(ctx, { TransactItems: compiled.map((c) => ({ Get: c.request })), ...options }) as Record<string, unknown>;
    return { Responses: r.Responses, ...(r.ConsumedCapacity ? { ConsumedCapacity: r.ConsumedCapacity } : {}) };
  }
  if (reads.length > 0) throw new ValidationException('Transaction must contain either only read statements or only write statements');
  if (compiled.some((c) => c.request.ReturnValues !== undefined)) throw new ValidationException('RETURNING is not supported in ExecuteTransaction');
  try {
    const r = transactWriteItems(ctx, {
      TransactItems: compiled.map((c, i) => ({ [WRITE_ACTIONS[c.op]!]: { ...c.request, ...onConditionFailure(statements[i]!) } })),
      ...(token !== undefined ? { ClientRequestToken: token } : {}),
      ...options,
    }) as Record<string, unknown>;
    // DynamoDB answers writes with an empty Responses list, not one entry per statement.
    return { Responses: [], ...(r.ConsumedCapacity ? { ConsumedCapacity: r.ConsumedCapacity } : {}) };
  } catch (error) {
    if (error instanceof TransactionCanceledException) throw withDuplicateItems(error, compiled);
    throw error;
  }
}

/**
 * Prepares statement `i`. A statement refused for what it says (PartiqlStatementError), and a
 * SELECT that is not a read of one item by its full primary key, fail the request naming the
 * statement; an error in a parameter's value keeps its own message, as DynamoDB reports both.
 */
function prepareInTransaction(ctx: EngineContext, raw: Record<string, unknown>, i: number): CompiledStatement {
  const inStatement = (message: string) => new ValidationException(`Validation failed in TransactStatements[${i}]: ${message}`);
  try {
    const { compiled } = prepareStatement(ctx, raw.Statement as string, raw.Parameters as unknown[] | undefined);
    if (compiled.op === 'Query' || compiled.op === 'Scan') throw inStatement(SELECT_NEEDS_KEY);
    return compiled;
  } catch (error) {
    if (error instanceof PartiqlStatementError) throw inStatement(error.message);
    throw error;
  }
}

/** A statement's ReturnValuesOnConditionCheckFailure: ALL_OLD puts the item in its CancellationReasons entry. */
function onConditionFailure(raw: Record<string, unknown>): Record<string, unknown> {
  return raw.ReturnValuesOnConditionCheckFailure !== undefined ? { ReturnValuesOnConditionCheckFailure: raw.ReturnValuesOnConditionCheckFailure } : {};
}

/** Cancellation reasons with INSERTs whose condition failed renamed DuplicateItem. */
function withDuplicateItems(error: TransactionCanceledException, compiled: readonly CompiledStatement[]): TransactionCanceledException {
  return new TransactionCanceledException(
    error.CancellationReasons.map((r, i) => (r.Code === 'ConditionalCheckFailed' && compiled[i]?.op === 'PutItem' ? { Code: 'DuplicateItem', Message: 'Duplicate primary key exists in table' } : r)),
  );
}
