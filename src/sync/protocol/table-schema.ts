/**
 * The schema a device announces for a synced table (retained JSON on
 * `edgetable/v1/<device>/<table>/schema`): exactly the CreateTable request a hub needs to create
 * the table with the same key schema and secondary indexes. Billing is on-demand at the hub.
 *
 * An announcement also says when it was made and which stream it is about (`announcedAtMs`,
 * `incarnation`, `TableId`): a hub creates a table from a retained schema only while it is fresh
 * (or once the device sends batches), and can address a conflict notice to the device's current
 * stream. CreateTable ignores members it does not know, so older hubs read it as before.
 */
import type { TableDefinition } from '../../replication/replica-types.js';

export type TableSchema = {
  readonly version: 1;
  readonly TableName: string;
  readonly KeySchema: TableDefinition['KeySchema'];
  readonly AttributeDefinitions: TableDefinition['AttributeDefinitions'];
  readonly LocalSecondaryIndexes?: readonly { IndexName: string; KeySchema: unknown; Projection: unknown }[];
  readonly GlobalSecondaryIndexes?: readonly { IndexName: string; KeySchema: unknown; Projection: unknown }[];
  /** Device wall clock when announced (absent from devices before this field). */
  readonly announcedAtMs?: number;
  readonly incarnation?: string;
  readonly TableId?: string;
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

/** The announcement's JSON: the table's schema, when, and the stream it belongs to. */
export function announceSchema(def: TableDefinition, incarnation: string, nowMs: number): string {
  return JSON.stringify({ ...tableSchema(def), announcedAtMs: nowMs, incarnation, TableId: def.TableId });
}

/** The CreateTable request in an announcement (without the announcement's own members). */
export function createTableRequest(schema: TableSchema): Record<string, unknown> {
  const { version: _v, announcedAtMs: _a, incarnation: _i, TableId: _t, ...request } = schema;
  return request;
}
