/**
 * Throws DynamoDB's ValidationException when `item` would put an invalid key (wrong type, empty,
 * oversized) into one of the table's indexes; GSIs still backfilling skip such items instead.
 * Multi-item writes call it for every item before writing any, so a bad item leaves nothing
 * written, even inside a shared (group-committed) txn.
 */
import type { Item } from '../model/attribute-value.js';
import { indexEntryFor } from '../indexes/index-entry.js';
import type { Table } from './table.js';

export function checkIndexKeys(table: Table, item: Item): void {
  if (!table.hasIndexes) return;
  for (const ix of table.def.LocalSecondaryIndexes) indexEntryFor(ix, table.keySchema, item, 'reject');
  for (const gsi of table.globalIndexes) if (gsi.def.IndexStatus === 'ACTIVE') indexEntryFor(gsi.def, table.keySchema, item, 'reject');
}
