/**
 * Checks a statement's `?` parameters as DynamoDB does, before the statement runs, so a bad value
 * is reported with DynamoDB's PartiQL text rather than as one of the ExpressionAttributeValues the
 * compiled request carries (whose errors name internal placeholders such as `:v1`).
 *
 * Each parameter is walked in document order, and the first problem met is the one reported:
 * a value nested too deeply, or a number that cannot be converted
 * (`The parameter cannot be converted to a numeric value: <text>`, no `: <text>` for an empty
 * string) or is out of range. The rest of the AttributeValue rules then apply as everywhere.
 */
import { invalid } from '../model/errors.js';
import { MAX_NESTING_DEPTH } from '../model/limits.js';
import { parseNumber } from '../model/number.js';
import { validateAttributeValue } from '../model/validate-attribute-value.js';

const NESTING = 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';

export function checkParameters(parameters: readonly unknown[]): void {
  for (const p of parameters) {
    walk(p, 1);
    validateAttributeValue(p);
  }
}

/** Depth as validateAttributeValue counts it: 1 for the parameter itself. */
function walk(value: unknown, depth: number): void {
  if (depth > MAX_NESTING_DEPTH) throw invalid(NESTING);
  if (typeof value !== 'object' || value === null) return;
  for (const [type, payload] of Object.entries(value)) {
    if (type === 'N' && typeof payload === 'string') checkNumber(payload);
    else if (type === 'NS' && Array.isArray(payload)) payload.forEach((n) => typeof n === 'string' && checkNumber(n));
    else if (type === 'L' && Array.isArray(payload)) payload.forEach((v) => walk(v, depth + 1));
    else if (type === 'M' && typeof payload === 'object' && payload !== null) Object.values(payload).forEach((v) => walk(v, depth + 1));
  }
}

/** PartiQL reads parameter numbers with the older checker's reading and words (model/value-layer.ts). */
function checkNumber(text: string): void {
  parseNumber(text, 'older');
}
