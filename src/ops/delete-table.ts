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
  ctx.store.write((txn) => ctx.catalog.remove(txn, name));
  // The catalog entry is gone first, so a crash here leaves only unreachable databases, which the
  // next CreateTable of the same name clears (see create-table.ts).
  for (const db of ctx.store.listDatabases(tablePrefix(name))) ctx.store.dropDatabase(db);
  ctx.catalog.reload();
  return { TableDescription: description };
}
