/**
 * UpdateTable's request, parsed once (issue 46): the schema pass (schema/) checks the model
 * constraints, then the members are read into a frozen, typed request. Each member is as given
 * (null is a member given, as it always was: it counts toward "at least one of"); the semantic
 * checks, which depend on the table (its billing mode, indexes and stream), stay with the
 * operation and its helpers.
 */
import type { AttributeDefinition, BillingMode, ProvisionedThroughput, StreamSpecification, TableClass } from '../../api/table-operations.js';
import { ConstraintErrors, checkEnum } from './request-checks.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

/**
 * One GlobalSecondaryIndexUpdates element as the schema pass leaves it: any of Create, Update and
 * Delete (exactly one is a semantic rule, update-global-indexes.ts).
 */
export type GlobalIndexUpdateMembers = { readonly Create?: unknown; readonly Update?: unknown; readonly Delete?: unknown };

export type UpdateTableRequest = {
  readonly tableName: string;
  readonly billingMode: BillingMode | null | undefined;
  readonly tableClass: TableClass | null | undefined;
  readonly provisionedThroughput: ProvisionedThroughput | null | undefined;
  readonly streamSpecification: StreamSpecification | null | undefined;
  readonly globalIndexUpdates: readonly GlobalIndexUpdateMembers[] | null | undefined;
  readonly attributeDefinitions: readonly AttributeDefinition[] | null | undefined;
  readonly sseSpecification: unknown;
  /** Not in the schema: edgetable refuses it (no replicas on a device). */
  readonly replicaUpdates: unknown;
  /** null is refused by the operation, after its table checks, as it always was. */
  readonly deletionProtection: boolean | null | undefined;
};

export function parseUpdateTableRequest(request: unknown): UpdateTableRequest {
  const req = checkRequest(REQUEST_SCHEMAS.UpdateTable, request);
  const tableName = readTableName(req.TableName);
  const errors = new ConstraintErrors();
  checkEnum(errors, req.BillingMode, 'billingMode', ['PROVISIONED', 'PAY_PER_REQUEST']);
  checkEnum(errors, req.TableClass, 'tableClass', ['STANDARD', 'STANDARD_INFREQUENT_ACCESS']);
  errors.throwIfAny();
  // The schema pass has checked each of these members' JSON type and constraints.
  return Object.freeze({
    tableName,
    billingMode: req.BillingMode as BillingMode | null | undefined,
    tableClass: req.TableClass as TableClass | null | undefined,
    provisionedThroughput: req.ProvisionedThroughput as ProvisionedThroughput | null | undefined,
    streamSpecification: req.StreamSpecification as StreamSpecification | null | undefined,
    globalIndexUpdates: req.GlobalSecondaryIndexUpdates as GlobalIndexUpdateMembers[] | null | undefined,
    attributeDefinitions: req.AttributeDefinitions as AttributeDefinition[] | null | undefined,
    sseSpecification: req.SSESpecification,
    replicaUpdates: req.ReplicaUpdates,
    deletionProtection: req.DeletionProtectionEnabled as boolean | null | undefined,
  });
}
