/**
 * Shape checks shared by the legacy parameters (§7.7). Two error kinds, in the service's order:
 * - SerializationException when a member has the wrong JSON type (checked while deserializing);
 * - Coral constraint errors (`1 validation error detected: Value 'X' at 'member.path' failed to
 *   satisfy constraint: ...`) for enum members, reported before any request-level rule.
 * JSON `null` members count as absent, as everywhere else in the engine.
 */
import { SerializationException, ValidationException } from '../model/errors.js';
import { expectBoolean, expectList, expectString } from '../model/wire-shape.js';

/** One map entry of Expected / QueryFilter / ScanFilter / KeyConditions / AttributeUpdates. */
export type LegacyEntry = Readonly<Record<string, unknown>>;

/** DynamoDB's enum lists, in the order the service prints them. */
export const COMPARISON_OPERATORS = [
  'IN',
  'NULL',
  'BETWEEN',
  'LT',
  'NOT_CONTAINS',
  'EQ',
  'GT',
  'NOT_NULL',
  'NE',
  'LE',
  'BEGINS_WITH',
  'GE',
  'CONTAINS',
] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

export function isPresent(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** `Coral` constraint failure for one member, as a single-error message. */
export function constraintError(value: unknown, memberPath: string, constraint: string): ValidationException {
  const shown = isPresent(value) ? `'${Array.isArray(value) ? `[${value.join(', ')}]` : String(value)}'` : 'null';
  return new ValidationException(`1 validation error detected: Value ${shown} at '${memberPath}' failed to satisfy constraint: ${constraint}`);
}

export function enumConstraint(values: readonly string[]): string {
  return `Member must satisfy enum value set: [${values.join(', ')}]`;
}

/** `queryFilter` from `QueryFilter`: Coral spells member paths lower-camel. */
export function memberName(param: string): string {
  return param.charAt(0).toLowerCase() + param.slice(1);
}

/**
 * The entries of a legacy map parameter, or undefined when absent. Each entry must be an object.
 * @throws SerializationException
 */
export function readLegacyMap(req: Readonly<Record<string, unknown>>, param: string): [string, LegacyEntry][] | undefined {
  const raw = req[param];
  if (!isPresent(raw)) return undefined;
  if (!isObject(raw)) throw new SerializationException(`Unexpected value type for ${param}: expected a map`);
  const out: [string, LegacyEntry][] = [];
  for (const name of Object.keys(raw)) {
    const entry = raw[name];
    if (!isPresent(entry)) continue;
    if (!isObject(entry)) throw new SerializationException(`Unexpected value type in ${param}: expected a structure`);
    out.push([name, entry]);
  }
  return out;
}

/** The string member `key` of an entry, or undefined. @throws SerializationException */
export function readString(entry: LegacyEntry, key: string): string | undefined {
  const v = entry[key];
  if (!isPresent(v)) return undefined;
  expectString(v);
  return v as string;
}

/** The boolean member `key` of an entry, or undefined. @throws SerializationException */
export function readBoolean(entry: LegacyEntry, key: string): boolean | undefined {
  const v = entry[key];
  if (!isPresent(v)) return undefined;
  expectBoolean(v);
  return v as boolean;
}

/** The list member `key` of an entry, or undefined. @throws SerializationException */
export function readList(entry: LegacyEntry, key: string): readonly unknown[] | undefined {
  const v = entry[key];
  if (!isPresent(v)) return undefined;
  expectList(v);
  return v as unknown[];
}

/**
 * The ComparisonOperator of a map entry, checked against the enum; `required` (filters and key
 * conditions) also rejects a missing one, as Coral's `Member must not be null`.
 */
export function readComparisonOperator(
  param: string,
  name: string,
  entry: LegacyEntry,
  required: boolean,
): ComparisonOperator | undefined {
  const op = readString(entry, 'ComparisonOperator');
  const memberPath = `${memberName(param)}.${name}.member.comparisonOperator`;
  if (op === undefined) {
    if (required) throw constraintError(undefined, memberPath, 'Member must not be null');
    return undefined;
  }
  if (!(COMPARISON_OPERATORS as readonly string[]).includes(op)) {
    throw constraintError(op, memberPath, enumConstraint(COMPARISON_OPERATORS));
  }
  return op as ComparisonOperator;
}
