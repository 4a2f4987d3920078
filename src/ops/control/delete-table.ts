/**
 * DeleteTable: removes the catalog entry, every sub-database of the table (partitions, index
 * and stream databases, meta) and the sync records kept under its name (item versions, base-read
 * marks: stream/table-sync-records.ts), and returns the last description with TableStatus DELETING.
 * The table's stream is moved out first (stream/ended-streams.ts): readable, disabled, for the
 * stream retention after the delete.
 */
import { ResourceNotFoundException, ValidationException } from '../../model/errors.js';
import { SYNC_DB, tablePrefix } from '../../partition/database-names.js';
import { endTableStream } from '../../stream/ended-streams.js';
import { dropTableSyncRecords } from '../../stream/table-sync-records.js';
import { tableDescription } from './describe-table.js';
import type { EngineContext } from '../engine-context.js';
import { readTableName } from '../request/table-name.js';
import { checkRequest } from '../request/schema/check-request.js';
import { REQUEST_SCHEMAS } from '../request/schema/schemas.js';

export function deleteTable(ctx: EngineContext, request: unknown) {
  const name = readTableName(checkRequest(REQUEST_SCHEMAS.DeleteTable, request).TableName);
  const table = ctx.catalog.find(name);
  if (!table) throw new ResourceNotFoundException(`Requested resource not found: Table: ${name} not found`);
  if (table.def.DeletionProtectionEnabled) {
    throw new ValidationException(`Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.`);
  }
  const description = ctx.store.read((txn) => tableDescription(txn, table, 'DELETING'));
  // One txn: another process may create a table of the same name as soon as the entry is gone,
  // and its databases must not be dropped by this one.
  ctx.store.write((txn) => {
    ctx.catalog.remove(txn, table);
    // Its stream stays readable for the retention, as DynamoDB's does.
    endTableStream(ctx.store, txn, table, ctx.now());
    for (const db of ctx.store.listDatabases(tablePrefix(name))) ctx.store.dropDatabase(db);
    if (ctx.store.hasDatabase(SYNC_DB)) dropTableSyncRecords(txn, ctx.store.database(SYNC_DB), name);
  });
  ctx.catalog.reload();
  return { TableDescription: description };
}
