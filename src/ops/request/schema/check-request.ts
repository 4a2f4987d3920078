/**
 * One pass over a request against its shape (shape.ts), in the order DynamoDB's front end
 * (Coral) reports problems:
 * 1. a member of the wrong JSON type is a SerializationException, thrown at once with Coral's
 *    words (`TRUE_VALUE cannot be converted to String`, `Start of structure or map found where
 *    not expected`, `Unexpected field type`, ...), whatever else is wrong;
 * 2. a missing required parameter is reported alone, in DynamoDB's own words;
 * 3. every constraint failure is collected and reported together:
 *    `N validation error(s) detected: Value '<v>' at '<member.path>' failed to satisfy constraint: <c>`
 *    joined with `; `, members in the schema's order.
 * Only then does the operation run its semantic checks, in their fixed order.
 */
import { SerializationException, ValidationException } from '../../../model/errors.js';
import { expectBoolean, expectMap, expectString, scanMap, scanValue } from '../../../model/wire-shape.js';
import { ConstraintErrors, checkDataPlaneName, requestObject } from '../request-checks.js';
import { MAP_KEYS_CONSTRAINT, hasBadTableKey } from '../request-item-tables.js';
import { NAME_PATTERN, type Members, type Shape } from './shape.js';
import { passesRequest } from './passes-request.js';

const START_OF_MAP = 'Start of structure or map found where not expected';
const START_OF_LIST = 'Start of list found where not expected';
const UNEXPECTED_FIELD = 'Unexpected field type';
const UNEXPECTED_VALUE = 'Unexpected value type in payload';
const TABLE_ARN = /^arn:aws[a-z-]*:dynamodb:[^:]*:[^:]*:table\/[^/]+$/;
const MIN_NAME_CHARS = 3;
const MAX_NAME_CHARS = 255;

/** Checks `request` against `members`; returns it as an object, or throws as described above. */
export function checkRequest(members: Members, request: unknown): Record<string, unknown> {
  return check(members, request, undefined);
}

/**
 * checkRequest without the shape scan of attribute maps (items, keys): the caller converts every
 * one of them with validateItem, which checks the shape on its way, so a write walks each item once
 * instead of twice. A shape error must still win over every other error of the request, so until
 * the caller has converted every map, any error it is about to throw goes through
 * `shapeErrorFirst(error)`: it scans the maps in request order and throws the first shape error
 * found, else returns `error` to be thrown. checkRequest's own errors already do this.
 */
export function checkRequestDeferringItemScans(members: Members, request: unknown): { req: Record<string, unknown>; shapeErrorFirst(error: unknown): unknown } {
  const deferred: unknown[] = [];
  const req = check(members, request, deferred);
  return { req, shapeErrorFirst: (error) => scanDeferred(deferred, error) };
}

function scanDeferred(deferred: readonly unknown[], error: unknown): unknown {
  for (const map of deferred) scanMap(map, 0);
  return error;
}

function check(members: Members, request: unknown, deferred: unknown[] | undefined): Record<string, unknown> {
  const req = requestObject(request);
  // The common request has nothing to report: answer it without building any member's path.
  if (deferred === undefined && passesRequest(members, req)) return req;
  const errors = new ConstraintErrors();
  let missing: string | undefined;
  try {
    for (const name in members) {
      const shape = members[name]!;
      const value = req[name];
      if (shape.required !== undefined && (value === undefined || value === null)) {
        missing ??= shape.required;
        continue;
      }
      checkValue(shape, value, lowerFirst(name), errors, deferred);
    }
    if (missing !== undefined) throw new ValidationException(missing);
    errors.throwIfAny();
  } catch (e) {
    throw deferred ? scanDeferred(deferred, e) : e;
  }
  return req;
}

/** `TableName` -> `tableName`: Coral's member paths. */
export function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** `deferred`: attribute maps left for the caller's conversion (checkRequestDeferringItemScans), or undefined to scan them here. */
function checkValue(shape: Shape, value: unknown, path: string, errors: ConstraintErrors, deferred: unknown[] | undefined): void {
  if (value === undefined || value === null) {
    if (shape.notNull) errors.addNull(path);
    return;
  }
  switch (shape.kind) {
    case 'string':
      expectString(value);
      checkLength(errors, value, (value as string).length, path, shape.minLength, shape.maxLength);
      if (shape.pattern && !shape.pattern.test.test(value as string)) errors.add(value, path, `Member must satisfy regular expression pattern: ${shape.pattern.source}`);
      if (shape.enum && !shape.enum.includes(value as string)) errors.add(value, path, `Member must satisfy enum value set: [${shape.enum.join(', ')}]`);
      return;
    case 'tableName':
      expectString(value);
      if (shape.arn && TABLE_ARN.test(value as string)) return;
      if (shape.dataPlane) return checkDataPlaneName(errors, value as string, path);
      checkLength(errors, value, (value as string).length, path, MIN_NAME_CHARS, MAX_NAME_CHARS);
      if (!NAME_PATTERN.test.test(value as string)) errors.add(value, path, `Member must satisfy regular expression pattern: ${NAME_PATTERN.source}`);
      return;
    case 'boolean':
      expectBoolean(value);
      return;
    case 'integer':
    case 'long': {
      const n = expectNumber(value, shape.kind === 'integer' ? 'Integer' : 'Long');
      if (shape.min !== undefined && n < shape.min) errors.add(n, path, `Member must have value greater than or equal to ${shape.min}`);
      if (shape.max !== undefined && n > shape.max) errors.add(n, path, `Member must have value less than or equal to ${shape.max}`);
      return;
    }
    case 'list': {
      if (!Array.isArray(value)) throw new SerializationException(typeof value === 'object' ? START_OF_MAP : UNEXPECTED_FIELD);
      value.forEach((element, i) => checkValue(shape.member, element, `${path}.${i + 1}.member`, errors, deferred));
      const member = shape.member;
      checkLength(errors, member.kind === 'structure' && member.javaName ? new JavaShown(`[${value.map((e) => javaString(member, e)).join(', ')}]`) : value, value.length, path, shape.minLength, shape.maxLength);
      return;
    }
    case 'map': {
      const entries = Object.entries(expectObject(value, UNEXPECTED_FIELD));
      for (const [key, v] of entries) checkValue(shape.value, v, `${path}.${key}.member`, errors, deferred);
      checkLength(errors, value, entries.length, path, shape.minLength, shape.maxLength);
      if (shape.tableNameKeys && hasBadTableKey(value as Record<string, unknown>)) errors.add(value, path, MAP_KEYS_CONSTRAINT);
      return;
    }
    case 'structure': {
      const object = expectObject(value, UNEXPECTED_VALUE);
      for (const name in shape.members) checkValue(shape.members[name]!, object[name], `${path}.${lowerFirst(name)}`, errors, deferred);
      return;
    }
    case 'attributeValue':
      scanValue(value, 0);
      return;
    case 'attributeMap':
      if (deferred) {
        expectMap(value); // the map itself must be an object now: later members' errors come after it
        deferred.push(value);
      } else scanMap(value, 0);
      return;
  }
}

/** A value already printed as Coral's Java model prints it. */
class JavaShown {
  constructor(readonly text: string) {}
}

/** A named structure as its Java model class prints: `KeySchemaElement(attributeName=a, keyType=HASH)`. */
function javaString(shape: Shape, value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (shape.kind === 'structure' && shape.javaName && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    return `${shape.javaName}(${Object.keys(shape.members).map((name) => `${lowerFirst(name)}=${javaString(shape.members[name]!, object[name])}`).join(', ')})`;
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function checkLength(errors: ConstraintErrors, value: unknown, length: number, path: string, min: number | undefined, max: number | undefined): void {
  const add = (constraint: string) => (value instanceof JavaShown ? errors.addShown(value.text, path, constraint) : errors.add(value, path, constraint));
  if (min !== undefined && length < min) add(`Member must have length greater than or equal to ${min}`);
  if (max !== undefined && length > max) add(`Member must have length less than or equal to ${max}`);
}

function expectObject(value: unknown, primitiveMessage: string): Record<string, unknown> {
  if (Array.isArray(value)) throw new SerializationException(START_OF_LIST);
  if (typeof value !== 'object' || value === null) throw new SerializationException(primitiveMessage);
  return value as Record<string, unknown>;
}

/** A JSON number for an Integer or Long member; a decimal is truncated, as Coral reads it. */
function expectNumber(value: unknown, javaType: 'Integer' | 'Long'): number {
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string') throw new SerializationException(`STRING_VALUE cannot be converted to ${javaType}`);
  if (typeof value === 'boolean') throw new SerializationException(`${value ? 'TRUE_VALUE' : 'FALSE_VALUE'} cannot be converted to ${javaType}`);
  if (Array.isArray(value)) throw new SerializationException(`Unrecognized collection type class java.lang.${javaType}`);
  throw new SerializationException(START_OF_MAP);
}
