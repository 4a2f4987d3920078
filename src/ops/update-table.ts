/**
 * UpdateTable: billing mode, provisioned throughput, table class and deletion protection, applied
 * at once (the table stays ACTIVE), and global secondary index Create/Update/Delete
 * (update-global-indexes.ts; a created index is backfilled in the background).
 */
import { INVALID_PARAMETERS, ResourceNotFoundException, ValidationException } from '../model/errors.js';
import type { BillingMode, TableDefinition } from '../table/table-definition.js';
import { readThroughput } from './create-table-rules.js';
import { applyGlobalIndexUpdates } from './update-global-indexes.js';
import { checkThroughputChanges } from './unchanged-throughput.js';
import { globalIndexDatabaseNames } from '../table/table-databases.js';
import { globalIndexPrefix } from '../partition/database-names.js';
import { tableDescription } from './describe-table.js';
import type { EngineContext } from './engine-context.js';
import { ConstraintErrors, checkEnum, optionalBoolean } from './request-checks.js';
import { readTableName } from './table-name.js';
import { applyStreamUpdate } from '../stream/stream-update.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

export function updateTable(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.UpdateTable, request);
  const name = readTableName(req.TableName);
  const errors = new ConstraintErrors();
  checkEnum(errors, req.BillingMode, 'billingMode', ['PROVISIONED', 'PAY_PER_REQUEST']);
  checkEnum(errors, req.TableClass, 'tableClass', ['STANDARD', 'STANDARD_INFREQUENT_ACCESS']);
  errors.throwIfAny();
  const table = ctx.catalog.find(name);
  if (!table) throw new ResourceNotFoundException(`Requested resource not found: Table: ${name} not found`);
  const def = table.def;
  if (
    req.ProvisionedThroughput === undefined && req.BillingMode === undefined && req.StreamSpecification === undefined &&
    req.GlobalSecondaryIndexUpdates === undefined && req.SSESpecification === undefined && req.ReplicaUpdates === undefined &&
    req.TableClass === undefined && req.DeletionProtectionEnabled === undefined
  ) {
    throw new ValidationException(
      'At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required',
    );
  }
  if (req.ReplicaUpdates !== undefined) {
    throw new ValidationException('edgetable does not support ReplicaUpdates in UpdateTable yet');
  }
  const billing = (req.BillingMode as BillingMode | undefined) ?? def.BillingMode;
  // Index updates in the same request are read under the billing mode the table switches to: a
  // switch to PROVISIONED gives each index its throughput here.
  const indexUpdates = req.GlobalSecondaryIndexUpdates === undefined ? undefined : applyGlobalIndexUpdates({ ...def, BillingMode: billing }, req.GlobalSecondaryIndexUpdates, req.AttributeDefinitions);
  const now = ctx.now() / 1000;
  const base = withIndexThroughputFor(indexUpdates?.def ?? def, def.BillingMode, billing);
  let next: TableDefinition = { ...(req.StreamSpecification === undefined ? base : applyStreamUpdate(base, req.StreamSpecification, ctx.now())), BillingMode: billing };
  if (billing === 'PAY_PER_REQUEST') {
    if (req.ProvisionedThroughput !== undefined) readThroughput(req.ProvisionedThroughput, billing, undefined);
    next = {
      ...next,
      ProvisionedThroughput: { ReadCapacityUnits: 0, WriteCapacityUnits: 0, NumberOfDecreasesToday: def.ProvisionedThroughput.NumberOfDecreasesToday },
      ...(def.BillingMode !== 'PAY_PER_REQUEST' ? { LastUpdateToPayPerRequestDateTime: now } : {}),
    };
  } else if (req.ProvisionedThroughput !== undefined || (def.BillingMode !== 'PROVISIONED' && req.BillingMode !== undefined)) {
    if (req.ProvisionedThroughput === undefined) {
      throw new ValidationException(`${INVALID_PARAMETERS}ProvisionedThroughput must be specified when BillingMode is PROVISIONED`);
    }
    const t = readThroughput(req.ProvisionedThroughput, billing, undefined);
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
  if (req.TableClass !== undefined) next = { ...next, TableClass: req.TableClass as TableDefinition['TableClass'] };
  const protection = optionalBoolean(req.DeletionProtectionEnabled, 'DeletionProtectionEnabled');
  if (protection !== undefined) next = { ...next, DeletionProtectionEnabled: protection };
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
