import { ValidationException, type ValidationFamily } from '../model/errors.js';

/** The request parameter an expression came from; also the label in its error messages. */
export type ExpressionKind =
  | 'ConditionExpression'
  | 'FilterExpression'
  | 'KeyConditionExpression'
  | 'UpdateExpression'
  | 'ProjectionExpression';

/**
 * `Invalid <Kind>: <detail>` — the envelope DynamoDB puts around every expression error. `family`
 * decides whether some operations add the validation envelope too (ops/validation-envelope.ts).
 */
export function expressionError(kind: ExpressionKind, detail: string, family: ValidationFamily): ValidationException {
  return new ValidationException(`Invalid ${kind}: ${detail}`, { family });
}

/** DynamoDB's rendering of a document path in messages: `[a, [0], b]`. */
export function pathText(path: readonly (string | number)[]): string {
  return `[${path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join(', ')}]`;
}
