/**
 * ExecuteStatement: one PartiQL statement, compiled (compile-statement.ts) into the request of
 * the operation that runs it. SELECT pages with Limit and NextToken (the LastEvaluatedKey,
 * opaque); INSERT of an existing key fails with DuplicateItemException.
 */
import { ConditionalCheckFailedException, ValidationException } from '../model/errors.js';
import { deleteItem } from '../ops/write/delete-item.js';
import type { EngineContext } from '../ops/engine-context.js';
import { getItem } from '../ops/read/get-item.js';
import { putItem } from '../ops/write/put-item.js';
import { query } from '../ops/read/query.js';
import { ConstraintErrors, checkEnum, optionalBoolean, optionalInteger, requestObject } from '../ops/request/request-checks.js';
import { scan } from '../ops/read/scan.js';
import { updateItem } from '../ops/write/update-item.js';
import type { CompiledStatement } from './compile-statement.js';
import { DuplicateItemException } from './partiql-errors.js';
import { checkStatementMembers, prepareStatement } from './prepare-statement.js';

type Response = Record<string, unknown>;

export function executeStatement(ctx: EngineContext, request: unknown): Response {
  const req = requestObject(request);
  const errors = new ConstraintErrors();
  checkStatementMembers(errors, req);
  optionalBoolean(req.ConsistentRead, 'ConsistentRead');
  const limit = optionalInteger(req.Limit, 'Limit');
  if (limit !== undefined && limit < 1) errors.add(limit, 'limit', 'Member must have value greater than or equal to 1');
  checkEnum(errors, req.ReturnConsumedCapacity, 'returnConsumedCapacity', ['INDEXES', 'TOTAL', 'NONE']);
  checkEnum(errors, req.ReturnValuesOnConditionCheckFailure, 'returnValuesOnConditionCheckFailure', ['ALL_OLD', 'NONE']);
  if (req.NextToken !== undefined && (typeof req.NextToken !== 'string' || req.NextToken.length < 1)) errors.add(req.NextToken, 'nextToken', 'Member must have length greater than or equal to 1');
  errors.throwIfAny();
  const { statement, compiled } = prepareStatement(ctx, req.Statement as string, req.Parameters as unknown[] | undefined);
  if (statement.kind === 'exists') throw new ValidationException('EXISTS is only supported in ExecuteTransaction');
  const options = {
    ...(req.ReturnConsumedCapacity !== undefined ? { ReturnConsumedCapacity: req.ReturnConsumedCapacity } : {}),
  };
  return runCompiled(ctx, compiled, options, {
    ...(req.ConsistentRead !== undefined ? { ConsistentRead: req.ConsistentRead } : {}),
    ...(limit !== undefined ? { Limit: limit } : {}),
    ...(req.NextToken !== undefined ? { ExclusiveStartKey: decodeNextToken(req.NextToken as string) } : {}),
    ...(req.ReturnValuesOnConditionCheckFailure !== undefined ? { ReturnValuesOnConditionCheckFailure: req.ReturnValuesOnConditionCheckFailure } : {}),
  });
}

/**
 * Runs a compiled statement with request-level options; returns ExecuteStatement's response.
 * `extra` holds read options (ConsistentRead, Limit, ExclusiveStartKey) and write options.
 */
export function runCompiled(ctx: EngineContext, compiled: CompiledStatement, options: Record<string, unknown>, extra: Record<string, unknown>): Response {
  const read = pick(extra, ['ConsistentRead']);
  const capacity = (r: Response) => (r.ConsumedCapacity !== undefined ? { ConsumedCapacity: r.ConsumedCapacity } : {});
  switch (compiled.op) {
    case 'GetItem': {
      const r = getItem(ctx, { ...compiled.request, ...options, ...read }) as Response;
      return { Items: r.Item ? [r.Item] : [], ...capacity(r) };
    }
    case 'Query':
    case 'Scan': {
      const run = compiled.op === 'Query' ? query : scan;
      const r = run(ctx, { ...compiled.request, ...options, ...pick(extra, ['ConsistentRead', 'Limit', 'ExclusiveStartKey']) }) as Response;
      return {
        Items: r.Items ?? [],
        ...(r.LastEvaluatedKey ? { NextToken: encodeNextToken(r.LastEvaluatedKey), LastEvaluatedKey: r.LastEvaluatedKey } : {}),
        ...capacity(r),
      };
    }
    case 'PutItem': {
      try {
        return { Items: [], ...capacity(putItem(ctx, { ...compiled.request, ...options }) as Response) };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) throw new DuplicateItemException();
        throw error;
      }
    }
    case 'UpdateItem':
    case 'DeleteItem': {
      const run = compiled.op === 'UpdateItem' ? updateItem : deleteItem;
      const r = run(ctx, { ...compiled.request, ...options, ...pick(extra, ['ReturnValuesOnConditionCheckFailure']) }) as Response;
      // RETURNING: the item's attributes, as the statement's one result.
      return { Items: r.Attributes ? [r.Attributes] : [], ...capacity(r) };
    }
    case 'ConditionCheck':
      throw new ValidationException('EXISTS is only supported in ExecuteTransaction');
  }
}

function pick(from: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((n) => from[n] !== undefined).map((n) => [n, from[n]]));
}

/** NextToken: the page's LastEvaluatedKey, base64url JSON (opaque to callers). */
function encodeNextToken(key: unknown): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

function decodeNextToken(token: string): unknown {
  try {
    const key: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof key === 'object' && key !== null && !Array.isArray(key)) return key;
  } catch {
    // falls through to the error below
  }
  throw new ValidationException('Invalid NextToken');
}
