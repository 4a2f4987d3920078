/**
 * CreateTable: validate (create-table-rules.ts), then record the definition and create the
 * partitions' sub-databases in one txn. The table is usable at once, so it is reported ACTIVE, as
 * DynamoDB Local does.
 */
import { ResourceInUseException } from '../../model/errors.js';
import { tablePrefix } from '../../partition/database-names.js';
import { tableDatabaseNames } from '../../table/table-databases.js';
import { keyLayoutOf } from '../../table/table-definition.js';
import { PARTITION_ID_STORE_FORMAT } from '../../storage/store-format.js';
import { buildTableDefinition } from '../request/create-table-rules.js';
import { tableDescription } from './describe-table.js';
import type { EngineContext } from '../engine-context.js';

export function createTable(ctx: EngineContext, request: unknown) {
  const def = buildTableDefinition(request, { now: ctx.now() });
  if (ctx.catalog.find(def.TableName)) throw new ResourceInUseException(`Table already exists: ${def.TableName}`);
  ctx.store.write((txn) => {
    if (ctx.catalog.readDefinition(txn, def.TableName)) throw new ResourceInUseException(`Table already exists: ${def.TableName}`);
    // Databases left behind by a DeleteTable interrupted by a crash belong to no table: clear them.
    // Inside the txn, after the check: another process may have created the table meanwhile.
    for (const db of ctx.store.listDatabases(tablePrefix(def.TableName))) ctx.store.dropDatabase(db);
    // Builds before store format 4 would look for this table's items under hash-first keys: keep them out.
    if (keyLayoutOf(def) === 'partition-id') ctx.store.raiseFormat(txn, PARTITION_ID_STORE_FORMAT);
    ctx.catalog.save(txn, def);
    // Create every sub-database now, so readers (which cannot create) always find them.
    for (const name of tableDatabaseNames(def)) txn.count(ctx.store.database(name));
  });
  ctx.catalog.reload();
  const table = ctx.catalog.require(def.TableName);
  return { TableDescription: ctx.store.read((txn) => tableDescription(txn, table, 'ACTIVE')) };
}
