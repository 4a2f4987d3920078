/**
 * The schema a device announces for a synced table (retained JSON on
 * `edgetable/v1/<device>/<table>/schema`): exactly the CreateTable request a hub needs to create
 * the table with the same key schema and secondary indexes. Billing is on-demand at the hub.
 */
import type { TableDefinition } from '../table/table-definition.js';

export type TableSchema = {
  readonly version: 1;
  readonly TableName: string;
  readonly KeySchema: TableDefinition['KeySchema'];
  readonly AttributeDefinitions: TableDefinition['AttributeDefinitions'];
  readonly LocalSecondaryIndexes?: readonly { IndexName: string; KeySchema: unknown; Projection: unknown }[];
  readonly GlobalSecondaryIndexes?: readonly { IndexName: string; KeySchema: unknown; Projection: unknown }[];
};

export function tableSchema(def: TableDefinition): TableSchema {
  const index = (ix: { IndexName: string; KeySchema: unknown; Projection: unknown }) => ({ IndexName: ix.IndexName, KeySchema: ix.KeySchema, Projection: ix.Projection });
  return {
    version: 1,
    TableName: def.TableName,
    KeySchema: def.KeySchema,
    AttributeDefinitions: def.AttributeDefinitions,
    ...(def.LocalSecondaryIndexes.length > 0 ? { LocalSecondaryIndexes: def.LocalSecondaryIndexes.map(index) } : {}),
    ...(def.GlobalSecondaryIndexes.length > 0 ? { GlobalSecondaryIndexes: def.GlobalSecondaryIndexes.map(index) } : {}),
  };
}
