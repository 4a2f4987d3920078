/**
 * The schema pass's shortcut for a request it has nothing to report on (check-request.ts): each
 * member the request has, answered by a test that neither throws nor allocates where the values
 * are of the common kinds (strings, names, booleans, numbers, maps, attribute maps).
 * `passesRequest` answers true only when the full pass would find nothing at all; any doubt (a
 * member of another shape, a list, a nested structure) answers false and the full pass runs,
 * reporting in its order and words. So it changes what a request costs, never what it answers.
 *
 * Why: the full pass builds each member's path text (`tableName`, `key.pk.member`) on its way,
 * to name it in a message it almost never writes; a GetItem or a Query of three members paid
 * more for that than for the rest of its parse.
 */
import { scanValue } from '../../../model/wire-shape.js';
import { MAX_TABLE_NAME_CHARS, MIN_TABLE_ARN_CHARS, MIN_TABLE_NAME_CHARS } from '../../../model/limits.js';
import { NAME_PATTERN, type Members, type Shape } from './shape.js';

const TABLE_ARN = /^arn:aws[a-z-]*:dynamodb:[^:]*:[^:]*:table\/[^/]+$/;

/** A shape's members by name, and those a request must state (required or not null); built once per shape (shapes are frozen data). */
type Index = { readonly byName: ReadonlyMap<string, Shape>; readonly stated: readonly string[] };
const indexes = new WeakMap<Members, Index>();

function indexOf(members: Members): Index {
  let index = indexes.get(members);
  if (index === undefined) {
    const names = Object.keys(members);
    const stated = names.filter((name) => members[name]!.required !== undefined || members[name]!.notNull === true);
    index = { byName: new Map(names.map((name) => [name, members[name]!])), stated };
    indexes.set(members, index);
  }
  return index;
}

/**
 * Whether the schema pass of `members` over `req` (an object) would report nothing. It visits the
 * members the request has (for-in: inherited ones too, as the full pass reads them) rather than
 * every member the shape names, most of which a request leaves out; a member defined
 * non-enumerable is beyond it, as no JSON request or object literal has one.
 */
export function passesRequest(members: Members, req: Readonly<Record<string, unknown>>): boolean {
  const { byName, stated } = indexOf(members);
  // passes() refuses an absent required or not-null member, so counting those it accepted tells
  // whether the request states every one.
  let statedSeen = 0;
  for (const name in req) {
    const shape = byName.get(name);
    if (shape === undefined) continue;
    if (!passes(shape, req[name])) return false;
    if (shape.required !== undefined || shape.notNull === true) statedSeen++;
  }
  return statedSeen === stated.length;
}

function passes(shape: Shape, value: unknown): boolean {
  if (value === undefined || value === null) return shape.required === undefined && shape.notNull !== true;
  switch (shape.kind) {
    case 'string':
      if (typeof value !== 'string') return false;
      if (shape.minLength !== undefined && value.length < shape.minLength) return false;
      if (shape.maxLength !== undefined && value.length > shape.maxLength) return false;
      if (shape.enum !== undefined && !shape.enum.includes(value)) return false;
      return shape.pattern === undefined || shape.pattern.test.test(value);
    case 'tableName':
      return typeof value === 'string' && passesTableName(value, shape.arn, shape.dataPlane === true);
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
    case 'long': {
      if (typeof value !== 'number') return false;
      const n = Math.trunc(value);
      return !(shape.min !== undefined && n < shape.min) && !(shape.max !== undefined && n > shape.max);
    }
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value) || shape.tableNameKeys) return false;
      let count = 0;
      for (const key in value) {
        // The full pass reads own members only (Object.entries).
        if (!Object.hasOwn(value, key)) continue;
        if (!passes(shape.value, (value as Record<string, unknown>)[key])) return false;
        count++;
      }
      return !(shape.minLength !== undefined && count < shape.minLength) && !(shape.maxLength !== undefined && count > shape.maxLength);
    }
    case 'attributeValue':
      return passesAttributeValue(value);
    case 'attributeMap': {
      if (typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array) return false;
      for (const name in value) {
        const member = (value as Record<string, unknown>)[name];
        // scanMap reads own members only, and skips absent values.
        if (Object.hasOwn(value, name) && member !== undefined && member !== null && !passesAttributeValue(member)) return false;
      }
      return true;
    }
    case 'list':
    case 'structure':
      return false; // rare in reads: the full pass takes them
  }
}

/** Whether the schema pass accepts `value` as an item operation's or a read's TableName (a data-plane name) without a word. */
export function passesDataPlaneTableName(value: string): boolean {
  return passesTableName(value, false, true);
}

/** The last data-plane table name that passed: requests name the same table again and again. */
let lastTableName: string | undefined;

function passesTableName(value: string, arn: boolean, dataPlane: boolean): boolean {
  if (value === lastTableName && dataPlane) return true;
  if (arn && TABLE_ARN.test(value)) return true;
  if (!dataPlane) return value.length >= MIN_TABLE_NAME_CHARS && value.length <= MAX_TABLE_NAME_CHARS && NAME_PATTERN.test.test(value);
  // request-checks.ts checkDataPlaneName: 1..1024 chars, then at most 255 of the pattern.
  if (value.length < MIN_TABLE_ARN_CHARS || value.length > MAX_TABLE_NAME_CHARS || !NAME_PATTERN.test.test(value)) return false;
  lastTableName = value;
  return true;
}

/**
 * Whether scanValue finds nothing wrong with `value` (not null): a value of S or N members holding
 * strings, the common key and placeholder value, is answered here; any other asks scanValue.
 */
function passesAttributeValue(value: unknown): boolean {
  if (typeof value === 'object' && !Array.isArray(value)) {
    let plain = true;
    for (const type in value) {
      if ((type === 'S' || type === 'N') && typeof (value as Record<string, unknown>)[type] === 'string') continue;
      plain = false;
      break;
    }
    if (plain) return true;
  }
  try {
    scanValue(value, 0);
    return true;
  } catch {
    return false;
  }
}
