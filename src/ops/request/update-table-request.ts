/**
 * UpdateTable's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then every member is read into a frozen, typed request. A member given as null
 * still counts toward "at least one of" (as it always did); a conversion that fails is kept as a
 * Refusal (converted.ts) and thrown where the operation reads the member, after its table checks,
 * as DynamoDB reports an unknown table first. The semantic checks, which depend on the table (its
 * billing mode, indexes and stream), stay with the operation and its helpers.
 */
import type { AttributeDefinition, BillingMode, TableClass } from '../../api/table-operations.js';
import type { ScalarAttributeType } from '../../model/attribute-value.js';
import { INVALID_PARAMETERS, ValidationException } from '../../model/errors.js';
import { convert, type Converted } from './converted.js';
import { readGlobalIndexInput, type GlobalIndexInput } from './index-input.js';
import { ConstraintErrors, checkEnum, optionalArray, optionalBoolean, optionalObject } from './request-checks.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';
import { readStreamSpecificationInput, type StreamSpecificationInput } from './stream-specification-input.js';
import { readThroughputInput, type ThroughputInput } from './throughput-input.js';

/** One GlobalSecondaryIndexUpdates action: exactly one of Create, Update and Delete. */
export type GlobalIndexUpdate =
  | { readonly kind: 'Create'; readonly indexName: string; readonly index: Converted<GlobalIndexInput> }
  | { readonly kind: 'Update'; readonly indexName: string; readonly provisionedThroughput: Converted<ThroughputInput> | undefined }
  | { readonly kind: 'Delete'; readonly indexName: string };

export type UpdateTableRequest = {
  readonly tableName: string;
  readonly billingMode: BillingMode | undefined;
  readonly tableClass: TableClass | undefined;
  readonly provisionedThroughput: Converted<ThroughputInput> | undefined;
  readonly streamSpecification: Converted<StreamSpecificationInput> | undefined;
  /** Refused as a whole (a null list, an element that is null or not exactly one action). */
  readonly globalIndexUpdates: Converted<readonly GlobalIndexUpdate[]> | undefined;
  /** A delta merged by name, read only for a Create action (a null is refused only then). */
  readonly attributeDefinitions: Converted<readonly AttributeDefinition[]> | undefined;
  /** Only whether it was given: edgetable keeps no encryption settings (null counts as given). */
  readonly sseSpecificationGiven: boolean;
  /** Not in the schema, only whether it was given (null included): edgetable refuses it (no replicas on a device). */
  readonly replicaUpdatesGiven: boolean;
  readonly deletionProtection: Converted<boolean> | undefined;
};

export function parseUpdateTableRequest(request: unknown): UpdateTableRequest {
  const req = checkRequest(REQUEST_SCHEMAS.UpdateTable, request);
  const tableName = readTableName(req.TableName);
  const errors = new ConstraintErrors();
  checkEnum(errors, req.BillingMode, 'billingMode', ['PROVISIONED', 'PAY_PER_REQUEST']);
  checkEnum(errors, req.TableClass, 'tableClass', ['STANDARD', 'STANDARD_INFREQUENT_ACCESS']);
  errors.throwIfAny();
  return Object.freeze({
    tableName,
    // checkEnum above refused a null and any other value.
    billingMode: req.BillingMode as BillingMode | undefined,
    tableClass: req.TableClass as TableClass | undefined,
    provisionedThroughput: readThroughputInput(req.ProvisionedThroughput),
    streamSpecification: readStreamSpecificationInput(req.StreamSpecification, () => new ValidationException(`${INVALID_PARAMETERS}StreamSpecification must be an object`)),
    globalIndexUpdates: req.GlobalSecondaryIndexUpdates === undefined ? undefined : convert(() => readGlobalIndexUpdates(req.GlobalSecondaryIndexUpdates)),
    attributeDefinitions: req.AttributeDefinitions === undefined ? undefined : convert(() => readAttributeDefinitions(req.AttributeDefinitions)),
    sseSpecificationGiven: req.SSESpecification !== undefined,
    replicaUpdatesGiven: req.ReplicaUpdates !== undefined,
    deletionProtection: req.DeletionProtectionEnabled === undefined ? undefined : convert(() => optionalBoolean(req.DeletionProtectionEnabled, 'DeletionProtectionEnabled')!),
  });
}

function readGlobalIndexUpdates(raw: unknown): readonly GlobalIndexUpdate[] {
  const updates = optionalArray(raw, 'GlobalSecondaryIndexUpdates')!;
  return Object.freeze(
    updates.map((u, i): GlobalIndexUpdate => {
      const o = optionalObject(u, `GlobalSecondaryIndexUpdates.${i + 1}`) ?? {};
      const present = (['Create', 'Update', 'Delete'] as const).filter((k) => o[k] !== undefined && o[k] !== null);
      if (present.length !== 1) {
        throw new ValidationException(`${INVALID_PARAMETERS}One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null`);
      }
      // The schema pass has checked the action: a structure whose IndexName is a name.
      const kind = present[0]!;
      const body = o[kind] as Record<string, unknown>;
      const indexName = body.IndexName as string;
      if (kind === 'Delete') return Object.freeze({ kind, indexName });
      if (kind === 'Update') return Object.freeze({ kind, indexName, provisionedThroughput: readThroughputInput(body.ProvisionedThroughput) });
      return Object.freeze({ kind, indexName, index: readGlobalIndexInput(body, 'globalSecondaryIndexes.1.member') });
    }),
  );
}

function readAttributeDefinitions(raw: unknown): readonly AttributeDefinition[] {
  return Object.freeze(
    optionalArray(raw, 'AttributeDefinitions')!.map((a) => {
      const o = optionalObject(a, 'AttributeDefinition') ?? {};
      if (typeof o.AttributeName !== 'string' || !['S', 'N', 'B'].includes(o.AttributeType as string)) {
        throw new ValidationException(`${INVALID_PARAMETERS}Invalid AttributeDefinition: ${JSON.stringify(a)}`);
      }
      return Object.freeze({ AttributeName: o.AttributeName, AttributeType: o.AttributeType as ScalarAttributeType });
    }),
  );
}
