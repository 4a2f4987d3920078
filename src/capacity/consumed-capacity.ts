/**
 * The ConsumedCapacity response element (spec §5.5). Non-transactional operations report only
 * `CapacityUnits` (plus a `Table` arm and index arms under INDEXES); transactional ones add
 * Read/WriteCapacityUnits. Index arms join with the secondary-index issue.
 */
import { ValidationException } from '../model/errors.js';

export type ReturnConsumedCapacity = 'INDEXES' | 'TOTAL' | 'NONE';

export type ConsumedCapacity = {
  TableName: string;
  CapacityUnits: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
  Table?: { CapacityUnits: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
  LocalSecondaryIndexes?: Record<string, { CapacityUnits: number }>;
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits: number }>;
};

const MODES = ['INDEXES', 'TOTAL', 'NONE'];

export function readReturnConsumedCapacity(value: unknown): ReturnConsumedCapacity {
  if (value === undefined) return 'NONE';
  if (typeof value !== 'string' || !MODES.includes(value)) {
    throw new ValidationException(
      `1 validation error detected: Value '${String(value)}' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]`,
    );
  }
  return value as ReturnConsumedCapacity;
}

/** The element for a non-transactional operation on one table, or undefined under NONE. */
export function consumedCapacity(mode: ReturnConsumedCapacity, tableName: string, tableUnits: number): ConsumedCapacity | undefined {
  if (mode === 'NONE') return undefined;
  if (mode === 'TOTAL') return { TableName: tableName, CapacityUnits: tableUnits };
  return { TableName: tableName, CapacityUnits: tableUnits, Table: { CapacityUnits: tableUnits } };
}

/** Units charged to secondary indexes by one operation, by index name. */
export type IndexCapacity = {
  readonly local?: Readonly<Record<string, number>>;
  readonly global?: Readonly<Record<string, number>>;
};

/**
 * The element for a non-transactional operation whose units split between the table and its
 * indexes: `CapacityUnits` is the sum; under INDEXES each arm is listed (the table arm always, even
 * when zero, as DynamoDB does for a GSI query).
 */
export function consumedCapacityWithIndexes(
  mode: ReturnConsumedCapacity,
  tableName: string,
  tableUnits: number,
  indexes: IndexCapacity,
): ConsumedCapacity | undefined {
  if (mode === 'NONE') return undefined;
  let total = tableUnits;
  for (const u of Object.values(indexes.local ?? {})) total += u;
  for (const u of Object.values(indexes.global ?? {})) total += u;
  if (mode === 'TOTAL') return { TableName: tableName, CapacityUnits: total };
  const out: ConsumedCapacity = { TableName: tableName, CapacityUnits: total, Table: { CapacityUnits: tableUnits } };
  if (indexes.local && Object.keys(indexes.local).length > 0) out.LocalSecondaryIndexes = arms(indexes.local);
  if (indexes.global && Object.keys(indexes.global).length > 0) out.GlobalSecondaryIndexes = arms(indexes.global);
  return out;
}

function arms(units: Readonly<Record<string, number>>): Record<string, { CapacityUnits: number }> {
  const out: Record<string, { CapacityUnits: number }> = {};
  for (const [name, u] of Object.entries(units)) out[name] = { CapacityUnits: u };
  return out;
}
