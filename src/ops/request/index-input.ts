/**
 * A secondary index of a CreateTable (LocalSecondaryIndexes, GlobalSecondaryIndexes) or of an
 * UpdateTable Create action, read in the parse step into a typed value. What the index's checks
 * need of the table (its attribute definitions, the other index names, its billing mode) stays
 * with create-table-rules.ts; each conversion that fails here is kept as a Refusal and thrown at
 * its old place among those checks: the index's own constraints first, its throughput (an LSI's)
 * after its key schema, its projection after that, then a GSI's throughput.
 */
import type { KeySchemaElement } from '../../model/key-schema.js';
import { INVALID_PARAMETERS, SerializationException, ValidationException } from '../../model/errors.js';
import { MAX_KEY_ATTRIBUTE_NAME_BYTES } from '../../model/limits.js';
import type { Projection } from '../../table/table-definition.js';
import { convert, type Converted } from './converted.js';
import { ConstraintErrors, checkEnum, checkName, optionalArray, optionalObject } from './request-checks.js';
import { readThroughputInput, type ThroughputInput } from './throughput-input.js';

const KEY_TYPES = ['HASH', 'RANGE'] as const;
const PROJECTION_TYPES = ['ALL', 'KEYS_ONLY', 'INCLUDE'] as const;

type IndexInput = {
  readonly indexName: string;
  readonly keySchema: readonly KeySchemaElement[];
  /** Its NonKeyAttributes without repeats. */
  readonly projection: Converted<Projection>;
};

export type LocalIndexInput = IndexInput & {
  /** Whether ProvisionedThroughput was given (an LSI refuses it); refused when not a structure. */
  readonly throughputGiven: Converted<boolean>;
};

export type GlobalIndexInput = IndexInput & {
  readonly provisionedThroughput: Converted<ThroughputInput> | undefined;
};

/** `member`: the index's path in constraint messages, `localSecondaryIndexes.<n>.member`. */
export function readLocalIndexInput(raw: unknown, member: string): Converted<LocalIndexInput> {
  return convert(() => {
    const { e, ...base } = readIndexBase(raw, member);
    const throughputGiven = convert(() => optionalObject(e.ProvisionedThroughput, `${member}.ProvisionedThroughput`) !== undefined);
    return Object.freeze({ ...base, throughputGiven });
  });
}

/** `member`: the index's path in constraint messages, `globalSecondaryIndexes.<n>.member`. */
export function readGlobalIndexInput(raw: unknown, member: string): Converted<GlobalIndexInput> {
  return convert(() => {
    const { e, ...base } = readIndexBase(raw, member);
    return Object.freeze({ ...base, provisionedThroughput: readThroughputInput(e.ProvisionedThroughput) });
  });
}

/** The index's own constraints, reported together (its name, key schema and projection present). */
function readIndexBase(raw: unknown, member: string) {
  const e = optionalObject(raw, member) ?? {};
  const errors = new ConstraintErrors();
  checkName(errors, e.IndexName, `${member}.indexName`);
  const ks = optionalArray(e.KeySchema, `${member}.KeySchema`);
  if (ks === undefined) errors.addNull(`${member}.keySchema`);
  else if (ks.length < 1 || ks.length > 2) errors.add(JSON.stringify(ks), `${member}.keySchema`, 'Member must have length less than or equal to 2');
  const keySchema = (ks ?? []).map((k, i) => readKeySchemaElement(k, `${member}.keySchema.${i + 1}.member`, errors));
  if (e.Projection === undefined) errors.addNull(`${member}.projection`);
  errors.throwIfAny();
  return { e, indexName: e.IndexName as string, keySchema: Object.freeze(keySchema), projection: convert(() => readProjection(e.Projection, `${member}.projection`)) };
}

/** A KeySchema element, the table's or an index's; its constraint errors go to `errors`. */
export function readKeySchemaElement(raw: unknown, member: string, errors: ConstraintErrors): KeySchemaElement {
  const e = optionalObject(raw, member) ?? {};
  if (e.AttributeName === undefined) errors.addNull(`${member}.attributeName`);
  else if (typeof e.AttributeName !== 'string') throw new SerializationException(`Unexpected value type for ${member}.attributeName`);
  else if (e.AttributeName.length < 1) errors.add(e.AttributeName, `${member}.attributeName`, 'Member must have length greater than or equal to 1');
  else if (Buffer.byteLength(e.AttributeName) > MAX_KEY_ATTRIBUTE_NAME_BYTES) {
    errors.add(e.AttributeName, `${member}.attributeName`, `Member must have length less than or equal to ${MAX_KEY_ATTRIBUTE_NAME_BYTES}`);
  }
  if (e.KeyType === undefined) errors.addNull(`${member}.keyType`);
  else checkEnum(errors, e.KeyType, `${member}.keyType`, KEY_TYPES);
  // Either both are what the type says, or an error is collected and thrown before they are used.
  return Object.freeze({ AttributeName: e.AttributeName as string, KeyType: e.KeyType as 'HASH' | 'RANGE' });
}

function readProjection(raw: unknown, member: string): Projection {
  const p = optionalObject(raw, member) ?? {};
  const errors = new ConstraintErrors();
  checkEnum(errors, p.ProjectionType, `${member}.projectionType`, PROJECTION_TYPES);
  errors.throwIfAny();
  const type = p.ProjectionType as Projection['ProjectionType'] | undefined;
  const nonKey = optionalArray(p.NonKeyAttributes, `${member}.NonKeyAttributes`);
  if (type === undefined) throw invalidParam('Unknown ProjectionType: null');
  if (type === 'INCLUDE') {
    if (!nonKey) throw invalidParam('ProjectionType is INCLUDE, but NonKeyAttributes is not specified');
    if (nonKey.length < 1 || nonKey.length > 20) {
      throw new ValidationException(`1 validation error detected: Value '[${nonKey.join(', ')}]' at '${member}.nonKeyAttributes' failed to satisfy constraint: Member must have length ${nonKey.length < 1 ? 'greater than or equal to 1' : 'less than or equal to 20'}`);
    }
    for (const n of nonKey) {
      if (typeof n !== 'string') throw new SerializationException(`Unexpected value type for ${member}.NonKeyAttributes`);
      if (n.length < 1 || Buffer.byteLength(n) > MAX_KEY_ATTRIBUTE_NAME_BYTES) {
        throw invalidParam(`NonKeyAttributes name length must be between 1 and ${MAX_KEY_ATTRIBUTE_NAME_BYTES}: ${n}`);
      }
    }
    return Object.freeze({ ProjectionType: 'INCLUDE', NonKeyAttributes: Object.freeze([...new Set(nonKey as string[])]) });
  }
  if (nonKey) throw invalidParam(`ProjectionType is ${type}, but NonKeyAttributes is specified`);
  return Object.freeze({ ProjectionType: type });
}

function invalidParam(text: string): ValidationException {
  return new ValidationException(INVALID_PARAMETERS + text);
}
