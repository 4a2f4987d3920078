/**
 * Errors thrown by the engine. Each DynamoDB exception is a class whose `name` is DynamoDB's
 * exception name and whose message is DynamoDB's text, so callers (and the HTTP server, which maps
 * `name` to `__type`) can treat them exactly as the service's errors.
 */

export class EdgetableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The family of a ValidationException's message, tagged where it is raised. DynamoDB wraps some
 * families in `1 validation error detected: ` on some operations only (spec §8.4 "Envelope
 * drift"); ops/validation-envelope.ts decides which, so raising sites never format that prefix.
 * Untagged messages (data-dependent rules: key types, missing attributes, item size, arithmetic
 * results, ...) are always bare; Coral constraint messages already carry their own prefix.
 */
export type ValidationFamily =
  /** A number literal that cannot be converted, is out of range or has over 38 digits. */
  | 'number-value'
  /** An empty set, or a set with duplicate members. */
  | 'set-members'
  /** `NULL: false`. */
  | 'null-false'
  /** An expression's syntax error, emptiness, size or operator and IN-operand counts. */
  | 'expression-syntax'
  /** `The expression has redundant parentheses;`. */
  | 'redundant-parentheses'
  /** `The first operand must be distinct from the remaining operands ...` (e.g. contains(a, a)). */
  | 'distinct-operands'
  /** Other static expression checks: reserved words, functions, operand types, path overlaps. */
  | 'expression-static'
  /**
   * ExpressionAttributeNames/Values misuse: invalid, unused, undefined or too long placeholders,
   * empty maps, maps without expressions, legacy and expression parameters mixed.
   */
  | 'expression-parameters'
  /** A ReturnValues the operation does not accept (`ReturnValues can only be ALL_OLD or NONE`). */
  | 'return-values'
  /**
   * A malformed legacy condition entry (Expected, QueryFilter, ScanFilter, KeyConditions): Value
   * with Exists, Value with AttributeValueList, a missing Value, a wrong argument count.
   */
  | 'legacy-conditions'
  /** Query/Scan's Select against the projection parameters. */
  | 'select-projection';

/** The request is invalid; nothing was changed. */
export class ValidationException extends EdgetableError {
  /** Undefined: a bare message on every operation. */
  readonly family: ValidationFamily | undefined;
  constructor(message: string, options?: { cause?: unknown; family?: ValidationFamily }) {
    super(message, options);
    this.family = options?.family;
  }
}
export class SerializationException extends EdgetableError {}
export class ResourceNotFoundException extends EdgetableError {}
export class ResourceInUseException extends EdgetableError {}
export class LimitExceededException extends EdgetableError {}
export class ProvisionedThroughputExceededException extends EdgetableError {}
export class ThrottlingException extends EdgetableError {}
export class ItemCollectionSizeLimitExceededException extends EdgetableError {}
export class TransactionConflictException extends EdgetableError {}
export class TransactionInProgressException extends EdgetableError {}
export class IdempotentParameterMismatchException extends EdgetableError {}
export class InternalServerError extends EdgetableError {}
/** The caller may not act on the resource (an ARN of another service). */
export class AccessDeniedException extends EdgetableError {}

/** A failed ConditionExpression. `Item` is set when ReturnValuesOnConditionCheckFailure=ALL_OLD. */
export class ConditionalCheckFailedException extends EdgetableError {
  readonly Item: Record<string, unknown> | undefined;
  constructor(message = 'The conditional request failed', item?: Record<string, unknown>) {
    super(message);
    this.Item = item;
  }
}

export type CancellationReason = {
  Code: string;
  Message?: string;
  Item?: Record<string, unknown>;
};

export class TransactionCanceledException extends EdgetableError {
  readonly CancellationReasons: CancellationReason[];
  constructor(reasons: CancellationReason[]) {
    super(`Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`);
    this.CancellationReasons = reasons;
  }
}

/** Shorthand for the commonest error; `family` when the message belongs to one (see ValidationFamily). */
export function invalid(message: string, family?: ValidationFamily): ValidationException {
  return new ValidationException(message, family === undefined ? undefined : { family });
}

/** Prefix shared by many of DynamoDB's parameter messages. */
export const INVALID_PARAMETERS = 'One or more parameter values were invalid: ';
