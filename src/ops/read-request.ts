/**
 * Parameters shared by Query and Scan: Limit, Select, ConsistentRead, IndexName and
 * ExclusiveStartKey, with DynamoDB's rules on how they combine (spec §4.3, §6.3, §6.4).
 */
import type { Item } from '../model/attribute-value.js';
import { EdgetableError, ValidationException } from '../model/errors.js';
import { checkKey } from '../model/key-rules.js';
import { validateItem } from '../model/validate-attribute-value.js';
import type { Table } from '../table/table.js';
import type { Select } from './read-page.js';
import { ConstraintErrors, checkEnum, optionalInteger } from './request-checks.js';

const SELECTS = ['ALL_ATTRIBUTES', 'ALL_PROJECTED_ATTRIBUTES', 'SPECIFIC_ATTRIBUTES', 'COUNT'] as const;

export type ReadParams = {
  limit: number | undefined;
  select: Select;
};

export function readLimitAndSelect(req: Record<string, unknown>, operation: 'Query' | 'Scan'): ReadParams {
  const errors = new ConstraintErrors();
  const limit = optionalInteger(req.Limit, 'Limit');
  if (limit !== undefined && limit < 1) errors.add(limit, 'limit', 'Member must have value greater than or equal to 1');
  checkEnum(errors, req.Select, 'select', SELECTS);
  errors.throwIfAny();
  const hasProjection = req.ProjectionExpression !== undefined || req.AttributesToGet !== undefined;
  const select = req.Select as Select | undefined;
  if (select === 'SPECIFIC_ATTRIBUTES' && !hasProjection) {
    const text = 'Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES';
    throw new ValidationException(operation === 'Query' ? `1 validation error detected: ${text}` : text);
  }
  if (select !== undefined && select !== 'SPECIFIC_ATTRIBUTES' && hasProjection) {
    throw new ValidationException(`Cannot specify the AttributesToGet or ProjectionExpression when choosing to get ${select}`);
  }
  if (select === 'ALL_PROJECTED_ATTRIBUTES' && req.IndexName === undefined) {
    throw new ValidationException('ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName');
  }
  return { limit, select: select ?? (hasProjection ? 'SPECIFIC_ATTRIBUTES' : 'ALL_ATTRIBUTES') };
}

/** Index reads arrive with the secondary-index issue; until then an IndexName must name nothing. */
export function checkIndexName(table: Table, indexName: unknown): void {
  if (indexName === undefined) return;
  const errors = new ConstraintErrors();
  if (typeof indexName !== 'string' || indexName.length < 3 || indexName.length > 255) {
    errors.add(indexName, 'indexName', 'Member must have length greater than or equal to 3');
    errors.throwIfAny();
  }
  const known = [...table.def.LocalSecondaryIndexes, ...table.def.GlobalSecondaryIndexes].some((ix) => ix.IndexName === indexName);
  if (!known) throw new ValidationException(`The table does not have the specified index: ${String(indexName)}`);
  throw new ValidationException(`edgetable cannot read secondary index ${String(indexName)} yet: index maintenance is not built`);
}

/** A validated ExclusiveStartKey: exactly the table's key attributes, with their types. */
export function readExclusiveStartKey(table: Table, raw: unknown): Item | undefined {
  if (raw === undefined) return undefined;
  try {
    const key = validateItem(raw);
    checkKey(key, table.keySchema);
    return key;
  } catch (e) {
    if (e instanceof EdgetableError) throw new ValidationException(`The provided starting key is invalid: ${e.message}`);
    throw e;
  }
}
