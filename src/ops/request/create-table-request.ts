/**
 * CreateTable's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the table's name, key schema and attribute definitions are read with the
 * constraint errors CreateTable reports together, into a frozen, typed request. The other members
 * stay as given (null included: the rules refuse it where they always did); the semantic rules
 * (create-table-rules.ts) take this request and read nothing of the raw one.
 */
import type {
  AttributeDefinition,
  BillingMode,
  GlobalSecondaryIndex,
  KeySchemaElement,
  LocalSecondaryIndex,
  ProvisionedThroughput,
  StreamSpecification,
  TableClass,
  Tag,
} from '../../api/table-operations.js';
import type { ScalarAttributeType } from '../../model/attribute-value.js';
import { SerializationException } from '../../model/errors.js';
import { MAX_KEY_ATTRIBUTE_NAME_BYTES } from '../../model/limits.js';
import { ConstraintErrors, checkEnum, checkName, optionalArray, optionalObject } from './request-checks.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

const BILLING_MODES = ['PROVISIONED', 'PAY_PER_REQUEST'] as const;
const KEY_TYPES = ['HASH', 'RANGE'] as const;
const SCALAR_TYPES = ['S', 'N', 'B'] as const;
const TABLE_CLASSES = ['STANDARD', 'STANDARD_INFREQUENT_ACCESS'] as const;

export type CreateTableRequest = {
  readonly tableName: string;
  readonly keySchema: readonly KeySchemaElement[];
  readonly attributeDefinitions: readonly AttributeDefinition[];
  /** The default (PROVISIONED) applied. */
  readonly billingMode: BillingMode;
  readonly provisionedThroughput: ProvisionedThroughput | null | undefined;
  readonly localSecondaryIndexes: readonly (LocalSecondaryIndex | null)[] | null | undefined;
  readonly globalSecondaryIndexes: readonly (GlobalSecondaryIndex | null)[] | null | undefined;
  readonly streamSpecification: StreamSpecification | null | undefined;
  readonly tableClass: TableClass | null | undefined;
  readonly deletionProtection: boolean | null | undefined;
  readonly tags: readonly (Tag | null)[] | null | undefined;
  /** edgetable extension, not in the schema: checked by the rules. */
  readonly partitionCount: unknown;
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
  // The schema pass has checked each of these members' JSON type and constraints.
  return Object.freeze({
    tableName: req.TableName as string,
    keySchema,
    attributeDefinitions: attributes,
    billingMode: (req.BillingMode as BillingMode | null | undefined) ?? 'PROVISIONED',
    provisionedThroughput: req.ProvisionedThroughput as ProvisionedThroughput | null | undefined,
    localSecondaryIndexes: req.LocalSecondaryIndexes as (LocalSecondaryIndex | null)[] | null | undefined,
    globalSecondaryIndexes: req.GlobalSecondaryIndexes as (GlobalSecondaryIndex | null)[] | null | undefined,
    streamSpecification: req.StreamSpecification as StreamSpecification | null | undefined,
    tableClass: req.TableClass as TableClass | null | undefined,
    deletionProtection: req.DeletionProtectionEnabled as boolean | null | undefined,
    tags: req.Tags as (Tag | null)[] | null | undefined,
    partitionCount: req.PartitionCount,
  });
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
  return { AttributeName: e.AttributeName as string, KeyType: e.KeyType as 'HASH' | 'RANGE' };
}

function readAttributeDefinition(raw: unknown, member: string, errors: ConstraintErrors): AttributeDefinition {
  const e = optionalObject(raw, member) ?? {};
  if (e.AttributeName === undefined) errors.addNull(`${member}.attributeName`);
  else if (typeof e.AttributeName !== 'string') throw new SerializationException(`Unexpected value type for ${member}.attributeName`);
  if (e.AttributeType === undefined) errors.addNull(`${member}.attributeType`);
  else checkEnum(errors, e.AttributeType, `${member}.attributeType`, SCALAR_TYPES);
  return { AttributeName: e.AttributeName as string, AttributeType: e.AttributeType as ScalarAttributeType };
}
