/**
 * UpdateTable: billing mode, provisioned throughput, table class and deletion protection, applied
 * at once (the table stays ACTIVE), and global secondary index Create/Update/Delete
 * (update-global-indexes.ts; a created index is backfilled in the background).
 */
import { INVALID_PARAMETERS, ResourceNotFoundException, ValidationException } from '../../model/errors.js';
import type { BillingMode, TableDefinition } from '../../table/table-definition.js';
import { readThroughput } from '../request/create-table-rules.js';
import { applyGlobalIndexUpdates } from './update-global-indexes.js';
import { checkThroughputChanges } from '../request/unchanged-throughput.js';
import { globalIndexDatabaseNames } from '../../table/table-databases.js';
import { globalIndexPrefix } from '../../partition/database-names.js';
import { tableDescription } from './describe-table.js';
import type { EngineContext } from '../engine-context.js';
import { accept } from '../request/converted.js';
import { applyStreamUpdate } from '../../stream/stream-update.js';
import { parseUpdateTableRequest } from '../request/update-table-request.js';

export function updateTable(ctx: EngineContext, request: unknown) {
  const update = parseUpdateTableRequest(request);
  const name = update.tableName;
  const table = ctx.catalog.find(name);
  if (!table) throw new ResourceNotFoundException(`Requested resource not found: Table: ${name} not found`);
  const def = table.def;
  if (
    update.provisionedThroughput === undefined && update.billingMode === undefined && update.streamSpecification === undefined &&
    update.globalIndexUpdates === undefined && !update.sseSpecificationGiven && !update.replicaUpdatesGiven &&
    update.tableClass === undefined && update.deletionProtection === undefined
  ) {
    throw new ValidationException(
      'At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required',
    );
  }
  if (update.replicaUpdatesGiven) {
    throw new ValidationException('edgetable does not support ReplicaUpdates in UpdateTable yet');
  }
  const billing = update.billingMode ?? def.BillingMode;
  // Index updates in the same request are read under the billing mode the table switches to: a
  // switch to PROVISIONED gives each index its throughput here.
  const indexUpdates = update.globalIndexUpdates === undefined ? undefined : applyGlobalIndexUpdates({ ...def, BillingMode: billing }, update.globalIndexUpdates, update.attributeDefinitions);
  const now = ctx.now() / 1000;
  const base = withIndexThroughputFor(indexUpdates?.def ?? def, def.BillingMode, billing);
  let next: TableDefinition = { ...(update.streamSpecification === undefined ? base : applyStreamUpdate(base, accept(update.streamSpecification), ctx.now())), BillingMode: billing };
  if (billing === 'PAY_PER_REQUEST') {
    if (update.provisionedThroughput !== undefined) readThroughput(update.provisionedThroughput, billing, undefined);
    next = {
      ...next,
      ProvisionedThroughput: { ReadCapacityUnits: 0, WriteCapacityUnits: 0, NumberOfDecreasesToday: def.ProvisionedThroughput.NumberOfDecreasesToday },
      ...(def.BillingMode !== 'PAY_PER_REQUEST' ? { LastUpdateToPayPerRequestDateTime: now } : {}),
    };
  } else if (update.provisionedThroughput !== undefined || (def.BillingMode !== 'PROVISIONED' && update.billingMode !== undefined)) {
    if (update.provisionedThroughput === undefined) {
      throw new ValidationException(`${INVALID_PARAMETERS}ProvisionedThroughput must be specified when BillingMode is PROVISIONED`);
    }
    const t = readThroughput(update.provisionedThroughput, billing, undefined);
    const old = def.ProvisionedThroughput;
    const decreased = t.ReadCapacityUnits < old.ReadCapacityUnits || t.WriteCapacityUnits < old.WriteCapacityUnits;
    const increased = t.ReadCapacityUnits > old.ReadCapacityUnits || t.WriteCapacityUnits > old.WriteCapacityUnits;
    if (def.BillingMode === 'PROVISIONED') checkThroughputChanges(old, t, undefined);
    next = {
      ...next,
      ProvisionedThroughput: {
        ReadCapacityUnits: t.ReadCapacityUnits,
        WriteCapacityUnits: t.WriteCapacityUnits,
        NumberOfDecreasesToday: old.NumberOfDecreasesToday + (decreased ? 1 : 0),
        ...(increased ? { LastIncreaseDateTime: now } : old.LastIncreaseDateTime !== undefined ? { LastIncreaseDateTime: old.LastIncreaseDateTime } : {}),
        ...(decreased ? { LastDecreaseDateTime: now } : old.LastDecreaseDateTime !== undefined ? { LastDecreaseDateTime: old.LastDecreaseDateTime } : {}),
      },
    };
  }
  if (update.tableClass !== undefined) next = { ...next, TableClass: update.tableClass };
  // A null, let through by the schema pass, is refused here, after the table's checks.
  if (update.deletionProtection !== undefined) next = { ...next, DeletionProtectionEnabled: accept(update.deletionProtection) };
  ctx.store.write((txn) => {
    ctx.catalog.replace(txn, table, next);
    if (indexUpdates?.created) {
      for (const name of globalIndexDatabaseNames(next.TableName, indexUpdates.created)) txn.count(ctx.store.database(name));
    }
    // In the same txn: once committed, another process may create an index of the same name.
    if (indexUpdates?.deleted) {
      for (const db of ctx.store.listDatabases(globalIndexPrefix(name, indexUpdates.deleted.IndexName))) ctx.store.dropDatabase(db);
    }
  });
  ctx.catalog.reload();
  if (indexUpdates?.created) ctx.background.scheduleBackfill(name, indexUpdates.created.IndexName);
  const updated = ctx.catalog.require(name);
  return { TableDescription: ctx.store.read((txn) => tableDescription(txn, updated, 'ACTIVE')) };
}

/**
 * A GSI's throughput follows its table's billing mode (spec §3.1, §5.6): a switch to
 * PAY_PER_REQUEST drops every index's (DescribeTable then reports 0/0), and a switch to
 * PROVISIONED needs one for every index, given by the same request's GlobalSecondaryIndexUpdates.
 */
function withIndexThroughputFor(def: TableDefinition, from: BillingMode, to: BillingMode): TableDefinition {
  if (from === to) return def;
  if (to === 'PAY_PER_REQUEST') {
    return { ...def, GlobalSecondaryIndexes: def.GlobalSecondaryIndexes.map(({ ProvisionedThroughput: _dropped, ...ix }) => ix) };
  }
  const missing = def.GlobalSecondaryIndexes.find((ix) => ix.ProvisionedThroughput === undefined);
  if (missing) throw new ValidationException(`${INVALID_PARAMETERS}ProvisionedThroughput must be specified for index: ${missing.IndexName}`);
  return def;
}
