/**
 * Data-plane TableName: a name (3-255 chars of [a-zA-Z0-9_.-]) or a table ARN, as DynamoDB accepts.
 */
import { ConstraintErrors, checkName } from './request-checks.js';

const ARN_TABLE = /^arn:aws[a-z-]*:dynamodb:[^:]*:[^:]*:table\/([^/]+)$/;

export function readTableName(value: unknown, member = 'tableName'): string {
  if (typeof value === 'string') {
    const arn = ARN_TABLE.exec(value);
    if (arn) return arn[1]!;
  }
  const errors = new ConstraintErrors();
  checkName(errors, value, member);
  errors.throwIfAny();
  return value as string;
}
