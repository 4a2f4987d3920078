/**
 * DeleteTable: removes the catalog entry and every sub-database of the table (partitions, index
 * and stream databases, meta) and returns the last description with TableStatus DELETING.
 */
import { ResourceNotFoundException, ValidationException } from '../model/errors.js';
import { tablePrefix } from '../partition/database-names.js';
import { tableDescription } from './describe-table.js';
import type { EngineContext } from './engine-context.js';
import { readTableName } from './table-name.js';
import { checkRequest } from './schema/check-request.js';
import { REQUEST_SCHEMAS } from './schema/schemas.js';

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
    for (const db of ctx.store.listDatabases(tablePrefix(name))) ctx.store.dropDatabase(db);
  });
  ctx.catalog.reload();
  return { TableDescription: description };
}
