/** The list members of BatchExecuteStatement and ExecuteTransaction, checked the way DynamoDB does. */
import { SerializationException } from '../model/errors.js';
import { checkEnum, type ConstraintErrors } from '../ops/request/request-checks.js';
import { checkStatementMembers } from './prepare-statement.js';

export function readStatementList(errors: ConstraintErrors, raw: unknown, member: string, max: number): Record<string, unknown>[] {
  if (raw === undefined || raw === null) {
    errors.addNull(member);
    return [];
  }
  if (!Array.isArray(raw)) throw new SerializationException(`Unexpected value type for ${member}: expected a list`);
  if (raw.length < 1) errors.add(raw, member, 'Member must have length greater than or equal to 1');
  if (raw.length > max) errors.add(raw, member, `Member must have length less than or equal to ${max}`);
  return raw.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new SerializationException(`Unexpected value type for ${member}.${i + 1}.member`);
    const e = entry as Record<string, unknown>;
    checkStatementMembers(errors, e, `${member}.${i + 1}.member.`);
    checkEnum(errors, e.ReturnValuesOnConditionCheckFailure, `${member}.${i + 1}.member.returnValuesOnConditionCheckFailure`, ['ALL_OLD', 'NONE']);
    return e;
  });
}
