import { ValidationException } from '../model/errors.js';

/** The request parameter an expression came from; also the label in its error messages. */
export type ExpressionKind =
  | 'ConditionExpression'
  | 'FilterExpression'
  | 'KeyConditionExpression'
  | 'UpdateExpression'
  | 'ProjectionExpression';

/**
 * `Invalid <Kind>: <detail>` — how DynamoDB words every expression error. A semantic check: bare,
 * never inside the request model's `N validation error(s) detected` envelope.
 */
export function expressionError(kind: ExpressionKind, detail: string): ValidationException {
  return new ValidationException(`Invalid ${kind}: ${detail}`);
}

/** DynamoDB's rendering of a document path in messages: `[a, [0], b]`. */
export function pathText(path: readonly (string | number)[]): string {
  return `[${path.map((p) => (typeof p === 'number' ? `[${p}]` : p)).join(', ')}]`;
}
