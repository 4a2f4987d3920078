/**
 * Checks shared by every operation's request validation. Messages follow DynamoDB's two families
 * (spec §8.4): Coral framework constraint errors, collected and joined as
 * `N validation error(s) detected: Value '<v>' at '<member>' failed to satisfy constraint: <c>`,
 * and bare engine messages thrown at once.
 */
import { SerializationException, ValidationException } from '../../model/errors.js';
import { MAX_TABLE_ARN_CHARS, MAX_TABLE_NAME_CHARS, MIN_TABLE_ARN_CHARS, MIN_TABLE_NAME_CHARS } from '../../model/limits.js';

const NAME_PATTERN = /^[a-zA-Z0-9_.-]+$/;

/** Collects Coral constraint violations so all of them are reported in one message, as DynamoDB does. */
export class ConstraintErrors {
  private readonly errors: string[] = [];

  add(value: unknown, member: string, constraint: string): void {
    const shown = value === undefined ? 'null' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    this.errors.push(`Value '${shown}' at '${member}' failed to satisfy constraint: ${constraint}`);
  }

  /** A value already rendered as the operation shows it (e.g. Java's toString of a map). */
  addShown(shown: string, member: string, constraint: string): void {
    this.errors.push(`Value '${shown}' at '${member}' failed to satisfy constraint: ${constraint}`);
  }

  addNull(member: string): void {
    this.errors.push(`Value null at '${member}' failed to satisfy constraint: Member must not be null`);
  }

  throwIfAny(): void {
    const n = this.errors.length;
    if (n === 0) return;
    throw new ValidationException(`${n} validation error${n === 1 ? '' : 's'} detected: ${this.errors.join('; ')}`);
  }
}

/** Table or index name rules shared by data-plane operations (3-255 chars of [a-zA-Z0-9_.-]). */
export function checkName(errors: ConstraintErrors, value: unknown, member: string): void {
  if (value === undefined || value === null) {
    errors.addNull(member);
    return;
  }
  if (typeof value !== 'string') throw new SerializationException(`Unexpected value type for ${member}: expected a string`);
  if (value.length < MIN_TABLE_NAME_CHARS) errors.add(value, member, `Member must have length greater than or equal to ${MIN_TABLE_NAME_CHARS}`);
  if (value.length > MAX_TABLE_NAME_CHARS) errors.add(value, member, `Member must have length less than or equal to ${MAX_TABLE_NAME_CHARS}`);
  if (!NAME_PATTERN.test(value)) errors.add(value, member, 'Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+');
}

/**
 * A data-plane TableName (spec §8.4, 2026 captures): Coral's member is a name or an ARN of
 * 1..1024 chars; only a value that keeps that is then held to the name rules, without their
 * minimum (at most 255 chars of [a-zA-Z0-9_.-]). So '' is one error (length >= 1), and a short
 * name such as 'ab' passes, to be answered ResourceNotFoundException. The caller resolves ARNs
 * before calling.
 */
export function checkDataPlaneName(errors: ConstraintErrors, value: string, member: string): void {
  if (value.length < MIN_TABLE_ARN_CHARS) errors.add(value, member, `Member must have length greater than or equal to ${MIN_TABLE_ARN_CHARS}`);
  else if (value.length > MAX_TABLE_ARN_CHARS) errors.add(value, member, `Member must have length less than or equal to ${MAX_TABLE_ARN_CHARS}`);
  else {
    if (value.length > MAX_TABLE_NAME_CHARS) errors.add(value, member, `Member must have length less than or equal to ${MAX_TABLE_NAME_CHARS}`);
    if (!NAME_PATTERN.test(value)) errors.add(value, member, 'Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+');
  }
}

export function checkEnum(errors: ConstraintErrors, value: unknown, member: string, allowed: readonly string[]): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    errors.add(value, member, `Member must satisfy enum value set: [${allowed.join(', ')}]`);
  }
}

/** Validates the request is an object and returns it; wrong shapes are SerializationExceptions. */
export function requestObject(request: unknown): Record<string, unknown> {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new SerializationException('Request body must be a JSON object');
  }
  return request as Record<string, unknown>;
}

export function optionalBoolean(value: unknown, member: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new SerializationException(`Unexpected value type for ${member}: expected a boolean`);
  return value;
}

/** An Integer or Long member; a decimal is truncated, as DynamoDB's front end reads it. */
export function optionalInteger(value: unknown, member: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new SerializationException(`Unexpected value type for ${member}: expected an integer`);
  return Math.trunc(value);
}

export function optionalObject(value: unknown, member: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SerializationException(`Unexpected value type for ${member}: expected a structure`);
  }
  return value as Record<string, unknown>;
}

export function optionalArray(value: unknown, member: string): unknown[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new SerializationException(`Unexpected value type for ${member}: expected a list`);
  return value;
}

/**
 * BatchGetItem's and BatchWriteItem's RequestItems: a non-empty map of table name to request.
 * DynamoDB answers an empty map as it answers a missing one, with its required-parameter sentence
 * (observed; some regions have moved BatchGetItem to the constraint form, not the service the
 * conformance suite checks against).
 */
export function readRequestItems(value: unknown, operation: 'BatchGetItem' | 'BatchWriteItem'): Record<string, unknown> {
  const requestItems = optionalObject(value, 'RequestItems');
  if (!requestItems || Object.keys(requestItems).length === 0) throw new ValidationException(`The requestItems parameter is required for ${operation}`);
  return requestItems;
}
