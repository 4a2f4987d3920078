/**
 * CreateTable's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the table's name, key schema and attribute definitions are read with the
 * constraint errors CreateTable reports together, and every other member is read into a typed
 * value, all into a frozen, typed request. A conversion that can fail only later in CreateTable's
 * order (a null where a structure belongs, an index's own constraints, ...) is kept as a Refusal
 * (converted.ts) and thrown there; the semantic rules (create-table-rules.ts) take this request
 * and read nothing of the raw one.
 */
import type { AttributeDefinition, BillingMode, KeySchemaElement, TableClass, Tag } from '../../api/table-operations.js';
import type { ScalarAttributeType } from '../../model/attribute-value.js';
import { INVALID_PARAMETERS, SerializationException, ValidationException } from '../../model/errors.js';
import { convert, type Converted } from './converted.js';
import { readGlobalIndexInput, readKeySchemaElement, readLocalIndexInput, type GlobalIndexInput, type LocalIndexInput } from './index-input.js';
import { ConstraintErrors, checkEnum, checkName, optionalArray, optionalBoolean, optionalInteger, optionalObject } from './request-checks.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';
import { readStreamSpecificationInput, type StreamSpecificationInput } from './stream-specification-input.js';
import { readThroughputInput, type ThroughputInput } from './throughput-input.js';

const BILLING_MODES = ['PROVISIONED', 'PAY_PER_REQUEST'] as const;
const SCALAR_TYPES = ['S', 'N', 'B'] as const;
const TABLE_CLASSES = ['STANDARD', 'STANDARD_INFREQUENT_ACCESS'] as const;

export type CreateTableRequest = {
  readonly tableName: string;
  readonly keySchema: readonly KeySchemaElement[];
  readonly attributeDefinitions: readonly AttributeDefinition[];
  /** The default (PROVISIONED) applied. */
  readonly billingMode: BillingMode;
  readonly provisionedThroughput: Converted<ThroughputInput> | undefined;
  readonly localSecondaryIndexes: Converted<readonly Converted<LocalIndexInput>[]> | undefined;
  readonly globalSecondaryIndexes: Converted<readonly Converted<GlobalIndexInput>[]> | undefined;
  readonly streamSpecification: Converted<StreamSpecificationInput> | undefined;
  readonly tableClass: TableClass | undefined;
  readonly deletionProtection: Converted<boolean> | undefined;
  /** The list is refused first (a null), then its length, then each tag in turn. */
  readonly tags: Converted<readonly Converted<Tag>[]> | undefined;
  /** edgetable extension, not in the schema: a whole number, its range checked by the rules. */
  readonly partitionCount: Converted<number> | undefined;
};

export function parseCreateTableRequest(request: unknown): CreateTableRequest {
  const req = checkRequest(REQUEST_SCHEMAS.CreateTable, request);
  const errors = new ConstraintErrors();
  checkName(errors, req.TableName, 'tableName');
  const keySchemaInput = optionalArray(req.KeySchema, 'KeySchema');
  const attributeInput = optionalArray(req.AttributeDefinitions, 'AttributeDefinitions');
  if (keySchemaInput === undefined) errors.addNull('keySchema');
  else if (keySchemaInput.length < 1 || keySchemaInput.length > 2) {
    errors.add(JSON.stringify(keySchemaInput), 'keySchema', `Member must have length ${keySchemaInput.length < 1 ? 'greater than or equal to 1' : 'less than or equal to 2'}`);
  }
  if (attributeInput === undefined) errors.addNull('attributeDefinitions');
  checkEnum(errors, req.BillingMode, 'billingMode', BILLING_MODES);
  checkEnum(errors, req.TableClass, 'tableClass', TABLE_CLASSES);
  const keySchema = (keySchemaInput ?? []).map((e, i) => readKeySchemaElement(e, `keySchema.${i + 1}.member`, errors));
  const attributes = (attributeInput ?? []).map((e, i) => readAttributeDefinition(e, `attributeDefinitions.${i + 1}.member`, errors));
  errors.throwIfAny();
  // The schema pass has checked TableName, and checkEnum above refused a null BillingMode and TableClass.
  return Object.freeze({
    tableName: req.TableName as string,
    keySchema: Object.freeze(keySchema),
    attributeDefinitions: Object.freeze(attributes),
    billingMode: (req.BillingMode as BillingMode | undefined) ?? 'PROVISIONED',
    provisionedThroughput: readThroughputInput(req.ProvisionedThroughput),
    localSecondaryIndexes: readList(req.LocalSecondaryIndexes, 'LocalSecondaryIndexes', (e, i) => readLocalIndexInput(e, `localSecondaryIndexes.${i + 1}.member`)),
    globalSecondaryIndexes: readList(req.GlobalSecondaryIndexes, 'GlobalSecondaryIndexes', (e, i) => readGlobalIndexInput(e, `globalSecondaryIndexes.${i + 1}.member`)),
    streamSpecification: readStreamSpecificationInput(req.StreamSpecification, () => new SerializationException('Unexpected value type for StreamSpecification: expected a structure')),
    tableClass: req.TableClass as TableClass | undefined,
    deletionProtection: readOptional(req.DeletionProtectionEnabled, (v) => optionalBoolean(v, 'DeletionProtectionEnabled')!),
    tags: readList(req.Tags, 'Tags', (t, i) => convert(() => readTag(t, i))),
    partitionCount: readOptional(req.PartitionCount, (v) => optionalInteger(v, 'PartitionCount')!),
  });
}

/** A list member: undefined when absent, refused when not a list (a null), else each element read. */
function readList<T>(raw: unknown, member: string, read: (element: unknown, i: number) => T): Converted<readonly T[]> | undefined {
  if (raw === undefined) return undefined;
  return convert(() => Object.freeze(optionalArray(raw, member)!.map(read)));
}

function readOptional<T>(raw: unknown, read: (value: unknown) => T): Converted<T> | undefined {
  return raw === undefined ? undefined : convert(() => read(raw));
}

function readTag(raw: unknown, i: number): Tag {
  const tag = optionalObject(raw, `Tags.${i + 1}`) ?? {};
  if (typeof tag.Key !== 'string' || tag.Key.length < 1 || tag.Key.length > 128) throw invalidParam(`Invalid tag key at Tags.${i + 1}`);
  if (typeof tag.Value !== 'string' || tag.Value.length > 256) throw invalidParam(`Invalid tag value at Tags.${i + 1}`);
  return Object.freeze({ Key: tag.Key, Value: tag.Value });
}

function invalidParam(text: string): ValidationException {
  return new ValidationException(INVALID_PARAMETERS + text);
}

function readAttributeDefinition(raw: unknown, member: string, errors: ConstraintErrors): AttributeDefinition {
  const e = optionalObject(raw, member) ?? {};
  if (e.AttributeName === undefined) errors.addNull(`${member}.attributeName`);
  else if (typeof e.AttributeName !== 'string') throw new SerializationException(`Unexpected value type for ${member}.attributeName`);
  if (e.AttributeType === undefined) errors.addNull(`${member}.attributeType`);
  else checkEnum(errors, e.AttributeType, `${member}.attributeType`, SCALAR_TYPES);
  // Either both are what the type says, or an error is collected and thrown before they are used.
  return Object.freeze({ AttributeName: e.AttributeName as string, AttributeType: e.AttributeType as ScalarAttributeType });
}
