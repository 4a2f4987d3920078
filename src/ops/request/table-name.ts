/**
 * Data-plane TableName: a table ARN, or a name of at most 255 chars of [a-zA-Z0-9_.-] (any
 * length from 1: a short name is simply a table that does not exist), as DynamoDB accepts.
 */
import { SerializationException } from '../../model/errors.js';
import { ConstraintErrors, checkDataPlaneName } from './request-checks.js';

const ARN_TABLE = /^arn:aws[a-z-]*:dynamodb:[^:]*:[^:]*:table\/([^/]+)$/;

/** A table's ARN, which the data plane takes wherever it takes a TableName. */
export function isTableArn(value: string): boolean {
  return ARN_TABLE.test(value);
}

/** The last plain name read: requests name the same table again and again, and a compare costs less than two patterns. */
let lastName: unknown = Symbol('none'); // no request member can equal it

export function readTableName(value: unknown, member = 'tableName'): string {
  if (value === lastName) return value as string;
  if (typeof value === 'string') {
    const arn = ARN_TABLE.exec(value);
    if (arn) return arn[1]!;
  }
  const errors = new ConstraintErrors();
  if (value === undefined || value === null) errors.addNull(member);
  else if (typeof value !== 'string') throw new SerializationException(`Unexpected value type for ${member}: expected a string`);
  else checkDataPlaneName(errors, value, member);
  errors.throwIfAny();
  lastName = value;
  return value as string;
}
