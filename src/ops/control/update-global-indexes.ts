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
import { optionalArray, optionalObject } from '../request/request-checks.js';
import { checkThroughputChanges } from '../request/unchanged-throughput.js';

export type GlobalIndexUpdateResult = {
  readonly def: TableDefinition;
  readonly created?: GlobalIndexDefinition;
  readonly deleted?: GlobalIndexDefinition;
};

const ONE_AT_A_TIME = 'Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table';

export function applyGlobalIndexUpdates(def: TableDefinition, updatesRaw: unknown, attributesRaw: unknown): GlobalIndexUpdateResult {
  const updates = optionalArray(updatesRaw, 'GlobalSecondaryIndexUpdates') ?? [];
  const parsed = updates.map((u, i) => {
    const o = optionalObject(u, `GlobalSecondaryIndexUpdates.${i + 1}`) ?? {};
    const present = (['Create', 'Update', 'Delete'] as const).filter((k) => o[k] !== undefined && o[k] !== null);
    if (present.length !== 1) {
      throw new ValidationException(`${INVALID_PARAMETERS}One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null`);
    }
    return { kind: present[0]!, body: optionalObject(o[present[0]!], present[0]!) ?? {} };
  });
  const structural = parsed.filter((p) => p.kind !== 'Update');
  if (structural.length > 1) throw new LimitExceededException(ONE_AT_A_TIME);
  // An index being backfilled may itself be deleted (spec §4.5, phase 2); anything else waits.
  const cancelsBuild = (p: (typeof parsed)[number]) =>
    p.kind === 'Delete' && def.GlobalSecondaryIndexes.some((ix) => ix.IndexName === p.body.IndexName && ix.IndexStatus === 'CREATING' && ix.Backfilling === true);
  if (structural.length === 1 && !cancelsBuild(structural[0]!) && def.GlobalSecondaryIndexes.some((ix) => ix.IndexStatus === 'CREATING' || ix.IndexStatus === 'DELETING')) {
    throw new LimitExceededException(ONE_AT_A_TIME);
  }

  let next = def;
  let created: GlobalIndexDefinition | undefined;
  let deleted: GlobalIndexDefinition | undefined;
  for (const { kind, body } of parsed) {
    const name = body.IndexName;
    if (kind === 'Update') {
      const ix = next.GlobalSecondaryIndexes.find((g) => g.IndexName === name);
      if (!ix) throw new ResourceNotFoundException(`Requested resource not found: Index: ${String(name)} not found`);
      const t = readThroughput(body.ProvisionedThroughput, next.BillingMode, String(name));
      if (next.BillingMode === 'PROVISIONED') checkThroughputChanges(ix.ProvisionedThroughput, t, String(name));
      next = replaceIndex(next, { ...ix, ...(next.BillingMode === 'PROVISIONED' ? { ProvisionedThroughput: t } : {}) });
    } else if (kind === 'Delete') {
      const ix = next.GlobalSecondaryIndexes.find((g) => g.IndexName === name);
      if (!ix) throw new ResourceNotFoundException(`Requested resource not found: Index: ${String(name)} not found`);
      deleted = ix;
      next = { ...next, GlobalSecondaryIndexes: next.GlobalSecondaryIndexes.filter((g) => g !== ix) };
    } else {
      if (next.GlobalSecondaryIndexes.length >= MAX_GLOBAL_SECONDARY_INDEXES) {
        throw new ValidationException(`${INVALID_PARAMETERS}GlobalSecondaryIndex count exceeds the per-table limit of ${MAX_GLOBAL_SECONDARY_INDEXES}`);
      }
      const attributes = mergeAttributes(next.AttributeDefinitions, attributesRaw);
      const defs = new Map<string, ScalarAttributeType>(attributes.map((a) => [a.AttributeName, a.AttributeType]));
      const names = new Set([...next.LocalSecondaryIndexes, ...next.GlobalSecondaryIndexes].map((ix) => ix.IndexName));
      const index = readGlobalIndex(body, 0, defs, names, new Set(), next.BillingMode, { IndexStatus: 'CREATING', Backfilling: true });
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
function mergeAttributes(current: readonly AttributeDefinition[], raw: unknown): AttributeDefinition[] {
  const merged = [...current];
  for (const a of optionalArray(raw, 'AttributeDefinitions') ?? []) {
    const o = optionalObject(a, 'AttributeDefinition') ?? {};
    if (typeof o.AttributeName !== 'string' || !['S', 'N', 'B'].includes(o.AttributeType as string)) {
      throw new ValidationException(`${INVALID_PARAMETERS}Invalid AttributeDefinition: ${JSON.stringify(a)}`);
    }
    if (!merged.some((m) => m.AttributeName === o.AttributeName)) {
      merged.push({ AttributeName: o.AttributeName, AttributeType: o.AttributeType as ScalarAttributeType });
    }
  }
  return merged;
}

function replaceIndex(def: TableDefinition, index: GlobalIndexDefinition): TableDefinition {
  return { ...def, GlobalSecondaryIndexes: def.GlobalSecondaryIndexes.map((g) => (g.IndexName === index.IndexName ? index : g)) };
}
