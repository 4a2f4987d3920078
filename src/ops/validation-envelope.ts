/**
 * The one table of which ValidationException families an operation reports inside Coral's
 * envelope, `1 validation error detected: <message>` (spec §8.4 "Envelope drift"). The sites that
 * raise an error tag its family (model/errors.ts ValidationFamily) and never format the prefix;
 * OPERATIONS runs every operation through withValidationEnvelope, so retuning a family on an
 * operation is one edit here.
 *
 * 2026 captures: the single-item writes (PutItem, UpdateItem, DeleteItem) wrap the
 * request-validation families, malformed legacy Expected entries among them; every other
 * operation (reads, BatchWriteItem, Transact*) reports them bare, as all operations did in older
 * captures. Data-dependent messages carry no family and are always bare. Query wraps its
 * Select/projection rules; Scan does not.
 */
import { ValidationException, type ValidationFamily } from '../model/errors.js';
import type { EngineContext } from './engine-context.js';
import type { OperationName } from './operations.js';

const ENVELOPE = '1 validation error detected: ';
/** Coral's own constraint messages already carry the envelope: never a second one. */
const HAS_ENVELOPE = /^\d+ validation errors? detected: /;

/** The single-item writes: the request-validation families the captures show wrapped. */
const ITEM_WRITES: readonly OperationName[] = ['PutItem', 'UpdateItem', 'DeleteItem'];

/** Per family, the operations that wrap it; the rest report it bare. */
export const WRAPPED_ON: { readonly [F in ValidationFamily]: readonly OperationName[] } = {
  // Number literals (2026-10 captures, valueLayers): enveloped on the three item writes wherever
  // the value sits (item, key, expression value, legacy parameter); bare on reads, BatchWriteItem
  // and transactions.
  'number-value': ITEM_WRITES,
  'set-members': ITEM_WRITES,
  'null-false': ITEM_WRITES,
  'expression-syntax': ITEM_WRITES,
  'redundant-parentheses': ITEM_WRITES,
  'distinct-operands': ITEM_WRITES,
  'expression-parameters': ITEM_WRITES,
  'return-values': ITEM_WRITES,
  // Captured on PutItem and DeleteItem (Expected); QueryFilter, ScanFilter and KeyConditions
  // are not captured and stay bare, as the read operations' other families do.
  'legacy-conditions': ITEM_WRITES,
  // Not among the captured families (reserved words, functions, operand types, path overlaps):
  // bare, as the older captures had them (unverified either way).
  'expression-static': [],
  'select-projection': ['Query'],
};

/**
 * `error` as `operation` reports it: wrapped when its family is wrapped there, else unchanged.
 * `operation` is a plain string so that OPERATIONS, whose keys OperationName comes from, can
 * pass its own names without a circular type.
 */
export function inValidationEnvelope(operation: string, error: unknown): unknown {
  if (!(error instanceof ValidationException) || error.family === undefined) return error;
  if (!(WRAPPED_ON[error.family] as readonly string[]).includes(operation) || HAS_ENVELOPE.test(error.message)) return error;
  // The wrapped error has no family of its own, so it is never wrapped twice.
  return new ValidationException(ENVELOPE + error.message, { cause: error });
}

/** `op` reporting its ValidationExceptions as `operation` does (inValidationEnvelope). */
export function withValidationEnvelope<R>(operation: string, op: (ctx: EngineContext, request: unknown) => R): (ctx: EngineContext, request: unknown) => R {
  return (ctx, request) => {
    try {
      return op(ctx, request);
    } catch (error) {
      throw inValidationEnvelope(operation, error);
    }
  };
}
