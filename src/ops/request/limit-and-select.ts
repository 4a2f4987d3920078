/**
 * Limit and Select, shared by Query's and Scan's parse (query-request.ts, scan-request.ts), with
 * DynamoDB's rules on how they combine with a projection and IndexName (spec §4.3, §6.3, §6.4).
 */
import { ValidationException } from '../../model/errors.js';
import type { Select } from '../read/read-page.js';
import { ConstraintErrors, checkEnum, optionalInteger } from './request-checks.js';

const SELECTS = ['SPECIFIC_ATTRIBUTES', 'COUNT', 'ALL_ATTRIBUTES', 'ALL_PROJECTED_ATTRIBUTES'] as const;

export type ReadParams = {
  limit: number | undefined;
  select: Select;
};

export function readLimitAndSelect(req: Record<string, unknown>): ReadParams {
  const limit = optionalInteger(req.Limit, 'Limit');
  const select = req.Select as Select | undefined;
  const hasProjection = req.ProjectionExpression !== undefined || req.AttributesToGet !== undefined;
  // The common request states no Select: nothing below has anything to report.
  if (select === undefined && (limit === undefined || limit >= 1)) return { limit, select: defaultSelect(req, hasProjection) };
  const errors = new ConstraintErrors();
  if (limit !== undefined && limit < 1) errors.add(limit, 'limit', 'Member must have value greater than or equal to 1');
  checkEnum(errors, req.Select, 'select', SELECTS);
  errors.throwIfAny();
  const refuse = (text: string) => new ValidationException(text);
  if (select === 'SPECIFIC_ATTRIBUTES' && !hasProjection) {
    throw refuse('Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES');
  }
  if (select !== undefined && select !== 'SPECIFIC_ATTRIBUTES' && hasProjection) {
    const parameter = req.ProjectionExpression !== undefined ? 'ProjectionExpression' : 'AttributesToGet';
    throw refuse(`Cannot specify the ${parameter} when choosing to get ${select === 'COUNT' ? 'only the Count' : select}`);
  }
  if (select === 'ALL_PROJECTED_ATTRIBUTES' && req.IndexName === undefined) {
    throw new ValidationException('ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName');
  }
  return { limit, select: select ?? defaultSelect(req, hasProjection) };
}

function defaultSelect(req: Record<string, unknown>, hasProjection: boolean): Select {
  return hasProjection ? 'SPECIFIC_ATTRIBUTES' : req.IndexName !== undefined ? 'ALL_PROJECTED_ATTRIBUTES' : 'ALL_ATTRIBUTES';
}

