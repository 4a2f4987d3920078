/**
 * ConsumedCapacity of the transactional operations (spec §5.3-§5.5): an array with one element
 * per table in order of first appearance in TransactItems, each carrying `CapacityUnits` plus
 * `ReadCapacityUnits` or `WriteCapacityUnits`, and under INDEXES the same split in the `Table` arm
 * and in each index arm. Callers pass table units already doubled (2 per transactional unit);
 * index units are not doubled (the transactional x2 applies to the table arm only).
 */
import type { ConsumedCapacity, ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';

export type TransactUnitKind = 'ReadCapacityUnits' | 'WriteCapacityUnits';

/** The units one table consumed; `TableName` as the request spelled it first. */
export type TableUnits = {
  readonly TableName: string;
  table: number;
  readonly local: Record<string, number>;
  readonly global: Record<string, number>;
};

export class TransactCapacity {
  private readonly tables = new Map<string, TableUnits>();

  add(tableName: string, requestedName: string, tableUnits: number, indexUnits?: { local: Record<string, number>; global: Record<string, number> }): void {
    let entry = this.tables.get(tableName);
    if (!entry) {
      entry = { TableName: requestedName, table: 0, local: {}, global: {} };
      this.tables.set(tableName, entry);
    }
    entry.table += tableUnits;
    if (indexUnits) {
      for (const [name, units] of Object.entries(indexUnits.local)) entry.local[name] = (entry.local[name] ?? 0) + units;
      for (const [name, units] of Object.entries(indexUnits.global)) entry.global[name] = (entry.global[name] ?? 0) + units;
    }
  }

  /** Per-table units in order of first appearance. */
  list(): TableUnits[] {
    return [...this.tables.values()];
  }
}

/** The ConsumedCapacity array for `tables`, or undefined under NONE. */
export function transactConsumedCapacity(
  mode: ReturnConsumedCapacity,
  kind: TransactUnitKind,
  tables: readonly TableUnits[],
): ConsumedCapacity[] | undefined {
  if (mode === 'NONE') return undefined;
  return tables.map((t) => {
    const total = t.table + sum(t.local) + sum(t.global);
    const element: ConsumedCapacity = { TableName: t.TableName, CapacityUnits: total, [kind]: total };
    if (mode === 'INDEXES') {
      element.Table = { CapacityUnits: t.table, [kind]: t.table };
      if (Object.keys(t.local).length > 0) element.LocalSecondaryIndexes = arms(t.local, kind);
      if (Object.keys(t.global).length > 0) element.GlobalSecondaryIndexes = arms(t.global, kind);
    }
    return element;
  });
}

function sum(units: Record<string, number>): number {
  let total = 0;
  for (const name in units) total += units[name]!;
  return total;
}

function arms(units: Record<string, number>, kind: TransactUnitKind): Record<string, { CapacityUnits: number }> {
  const out: Record<string, { CapacityUnits: number }> = {};
  for (const [name, n] of Object.entries(units)) out[name] = { CapacityUnits: n, [kind]: n } as { CapacityUnits: number };
  return out;
}
