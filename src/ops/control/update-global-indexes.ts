/**
 * UpdateTable's GlobalSecondaryIndexUpdates (spec §4.5): one Create or Delete per call (plus any
 * number of throughput Updates), one online index build per table at a time. A created index
 * starts CREATING with Backfilling true; gsi-backfill.ts fills it and makes it ACTIVE.
 */
import type { ScalarAttributeType } from '../../model/attribute-value.js';
import { INVALID_PARAMETERS, LimitExceededException, ResourceNotFoundException, ValidationException } from '../../model/errors.js';
import type { AttributeDefinition } from '../../model/key-schema.js';
import { MAX_GLOBAL_SECONDARY_INDEXES, MAX_PROJECTED_ATTRIBUTES } from '../../model/limits.js';
import type { GlobalIndexDefinition, TableDefinition } from '../../table/table-definition.js';
import { readGlobalIndex, readThroughput } from '../request/create-table-rules.js';
import { accept, type Converted } from '../request/converted.js';
import { checkThroughputChanges } from '../request/unchanged-throughput.js';
import type { GlobalIndexUpdate } from '../request/update-table-request.js';

export type GlobalIndexUpdateResult = {
  readonly def: TableDefinition;
  readonly created?: GlobalIndexDefinition;
  readonly deleted?: GlobalIndexDefinition;
};

const ONE_AT_A_TIME = 'Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table';

/**
 * `updatesInput` and `attributesInput`: UpdateTable's GlobalSecondaryIndexUpdates and
 * AttributeDefinitions as its parse step read them; their refusals are thrown here, the
 * attribute definitions' only for a Create action (the only one that reads them).
 */
export function applyGlobalIndexUpdates(
  def: TableDefinition,
  updatesInput: Converted<readonly GlobalIndexUpdate[]>,
  attributesInput: Converted<readonly AttributeDefinition[]> | undefined,
): GlobalIndexUpdateResult {
  const updates = accept(updatesInput);
  const structural = updates.filter((u) => u.kind !== 'Update');
  if (structural.length > 1) throw new LimitExceededException(ONE_AT_A_TIME);
  // An index being backfilled may itself be deleted (spec §4.5, phase 2); anything else waits.
  const cancelsBuild = (u: GlobalIndexUpdate) =>
    u.kind === 'Delete' && def.GlobalSecondaryIndexes.some((ix) => ix.IndexName === u.indexName && ix.IndexStatus === 'CREATING' && ix.Backfilling === true);
  if (structural.length === 1 && !cancelsBuild(structural[0]!) && def.GlobalSecondaryIndexes.some((ix) => ix.IndexStatus === 'CREATING' || ix.IndexStatus === 'DELETING')) {
    throw new LimitExceededException(ONE_AT_A_TIME);
  }

  let next = def;
  let created: GlobalIndexDefinition | undefined;
  let deleted: GlobalIndexDefinition | undefined;
  for (const update of updates) {
    const name = update.indexName;
    if (update.kind === 'Update') {
      const ix = next.GlobalSecondaryIndexes.find((g) => g.IndexName === name);
      if (!ix) throw new ResourceNotFoundException(`Requested resource not found: Index: ${name} not found`);
      const t = readThroughput(update.provisionedThroughput, next.BillingMode, name);
      if (next.BillingMode === 'PROVISIONED') checkThroughputChanges(ix.ProvisionedThroughput, t, name);
      next = replaceIndex(next, { ...ix, ...(next.BillingMode === 'PROVISIONED' ? { ProvisionedThroughput: t } : {}) });
    } else if (update.kind === 'Delete') {
      const ix = next.GlobalSecondaryIndexes.find((g) => g.IndexName === name);
      if (!ix) throw new ResourceNotFoundException(`Requested resource not found: Index: ${name} not found`);
      deleted = ix;
      next = { ...next, GlobalSecondaryIndexes: next.GlobalSecondaryIndexes.filter((g) => g !== ix) };
    } else {
      if (next.GlobalSecondaryIndexes.length >= MAX_GLOBAL_SECONDARY_INDEXES) {
        throw new ValidationException(`${INVALID_PARAMETERS}GlobalSecondaryIndex count exceeds the per-table limit of ${MAX_GLOBAL_SECONDARY_INDEXES}`);
      }
      const attributes = mergeAttributes(next.AttributeDefinitions, attributesInput === undefined ? [] : accept(attributesInput));
      const defs = new Map<string, ScalarAttributeType>(attributes.map((a) => [a.AttributeName, a.AttributeType]));
      const names = new Set([...next.LocalSecondaryIndexes, ...next.GlobalSecondaryIndexes].map((ix) => ix.IndexName));
      const index = readGlobalIndex(update.index, defs, names, new Set(), next.BillingMode, { IndexStatus: 'CREATING', Backfilling: true });
      created = { ...index, backfill: { partition: 0, itemsProcessed: 0 } };
      const used = new Set([...next.KeySchema, ...[...next.LocalSecondaryIndexes, ...next.GlobalSecondaryIndexes, created].flatMap((ix) => ix.KeySchema)].map((k) => k.AttributeName));
      const projected = [...next.LocalSecondaryIndexes, ...next.GlobalSecondaryIndexes, created].reduce((n, ix) => n + (ix.Projection.NonKeyAttributes?.length ?? 0), 0);
      if (projected > MAX_PROJECTED_ATTRIBUTES) {
        throw new ValidationException(`${INVALID_PARAMETERS}The number of attributes in key schemas and projections exceeds the limit of ${MAX_PROJECTED_ATTRIBUTES}: ${projected}`);
      }
      next = {
        ...next,
        AttributeDefinitions: attributes.filter((a) => used.has(a.AttributeName)),
        GlobalSecondaryIndexes: [...next.GlobalSecondaryIndexes, created],
      };
    }
  }
  return { def: next, ...(created ? { created } : {}), ...(deleted ? { deleted } : {}) };
}

/** UpdateTable's AttributeDefinitions is a delta merged by name; a conflicting type is ignored (spec §3.3). */
function mergeAttributes(current: readonly AttributeDefinition[], delta: readonly AttributeDefinition[]): AttributeDefinition[] {
  const merged = [...current];
  for (const a of delta) {
    if (!merged.some((m) => m.AttributeName === a.AttributeName)) merged.push(a);
  }
  return merged;
}

function replaceIndex(def: TableDefinition, index: GlobalIndexDefinition): TableDefinition {
  return { ...def, GlobalSecondaryIndexes: def.GlobalSecondaryIndexes.map((g) => (g.IndexName === index.IndexName ? index : g)) };
}
