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

/** The request is invalid; nothing was changed. */
export class ValidationException extends EdgetableError {}
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
export function invalid(message: string): ValidationException {
  return new ValidationException(message);
}

/** Prefix shared by many of DynamoDB's parameter messages. */
export const INVALID_PARAMETERS = 'One or more parameter values were invalid: ';
