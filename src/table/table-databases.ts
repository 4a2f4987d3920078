/** Every sub-database a table definition implies, so they can all be created with the table. */
import { globalIndexDb, localIndexDb, partitionDb, partitionIdsDb, tableMetaDb } from '../partition/database-names.js';
import { keyLayoutOf } from './table-definition.js';
import type { GlobalIndexDefinition, TableDefinition } from './table-definition.js';

export function tableDatabaseNames(def: TableDefinition): string[] {
  const names = [tableMetaDb(def.TableName)];
  if (keyLayoutOf(def) === 'partition-id') names.push(partitionIdsDb(def.TableName));
  for (const p of def.partitions) {
    names.push(partitionDb(def.TableName, p.id));
    for (const ix of def.LocalSecondaryIndexes) names.push(localIndexDb(def.TableName, p.id, ix.IndexName));
  }
  for (const ix of def.GlobalSecondaryIndexes) names.push(...globalIndexDatabaseNames(def.TableName, ix));
  return names;
}

export function globalIndexDatabaseNames(table: string, ix: GlobalIndexDefinition): string[] {
  return ix.partitions.map((p) => globalIndexDb(table, ix.IndexName, p.id));
}
