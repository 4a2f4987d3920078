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
