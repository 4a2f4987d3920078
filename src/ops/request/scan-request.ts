/**
 * Scan's request, parsed once (issue 46): the schema pass (schema/) checks the model constraints,
 * then the members Scan uses are read, in their fixed order, and its expressions compiled (request
 * rules: DynamoDB reports them before it looks the table up), into a frozen, typed request. scan
 * reads nothing else of the raw request.
 */
import { readReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { compileRequest, type CompiledExpressions } from '../../expr/index.js';
import type { WireItem } from '../../model/attribute-value.js';
import { ValidationException } from '../../model/errors.js';
import { readConsistentRead } from './item-request.js';
import type { Select } from '../read/read-page.js';
import { ConstraintErrors, optionalInteger } from './request-checks.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';
import { readLimitAndSelect } from './limit-and-select.js';
import type { PageReadRequest } from './page-read-request.js';

const MAX_TOTAL_SEGMENTS = 1_000_000;

/** A parallel scan's part: Segment of TotalSegments. */
export type ScanSegment = { readonly segment: number; readonly total: number };

export type ScanRequest = PageReadRequest & {
  /** Undefined for a whole-table scan. */
  readonly segment: ScanSegment | undefined;
  /** filter and projection when asked. */
  readonly compiled: CompiledExpressions;
};

export function parseScanRequest(request: unknown): ScanRequest {
  const req = checkRequest(REQUEST_SCHEMAS.Scan, request);
  const tableName = readTableName(req.TableName);
  const { limit, select } = readLimitAndSelect(req);
  const consistent = readConsistentRead(req.ConsistentRead);
  const capacityMode = readReturnConsumedCapacity(req.ReturnConsumedCapacity);
  const segment = readSegments(req);
  const compiled = compileRequest(req, 'Scan');
  // The schema pass has checked each of these members' JSON type and constraints.
  return Object.freeze({
    requestedName: req.TableName as string,
    tableName,
    indexName: req.IndexName as string | null | undefined,
    limit,
    select,
    selectAsked: req.Select as Select | undefined,
    consistent,
    capacityMode,
    segment,
    compiled,
    exclusiveStartKey: req.ExclusiveStartKey as WireItem | null | undefined,
  });
}

function readSegments(req: Record<string, unknown>): ScanSegment | undefined {
  const segment = optionalInteger(req.Segment, 'Segment');
  const total = optionalInteger(req.TotalSegments, 'TotalSegments');
  const errors = new ConstraintErrors();
  if (segment !== undefined && segment < 0) errors.add(segment, 'segment', 'Member must have value greater than or equal to 0');
  if (segment !== undefined && segment > MAX_TOTAL_SEGMENTS - 1) errors.add(segment, 'segment', `Member must have value less than or equal to ${MAX_TOTAL_SEGMENTS - 1}`);
  if (total !== undefined && total < 1) errors.add(total, 'totalSegments', 'Member must have value greater than or equal to 1');
  if (total !== undefined && total > MAX_TOTAL_SEGMENTS) errors.add(total, 'totalSegments', `Member must have value less than or equal to ${MAX_TOTAL_SEGMENTS}`);
  errors.throwIfAny();
  if (segment !== undefined && total === undefined) {
    throw new ValidationException('The TotalSegments parameter is required but was not present in the request when Segment parameter is present');
  }
  if (total !== undefined && segment === undefined) {
    throw new ValidationException('The Segment parameter is required but was not present in the request when parameter TotalSegments is present');
  }
  if (segment === undefined || total === undefined) return undefined;
  if (segment >= total) {
    throw new ValidationException(`The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: ${segment} is not less than TotalSegments: ${total}`);
  }
  return { segment, total };
}
