/**
 * Throws DynamoDB's ValidationException when `item` would put an invalid key (wrong type, empty,
 * oversized) into one of the table's indexes; GSIs still backfilling skip such items instead.
 * Multi-item writes call it for every item before writing any, so a bad item leaves nothing
 * written, even inside a shared (group-committed) txn.
 */
import type { Item } from '../model/attribute-value.js';
import { ValidationException } from '../model/errors.js';
import { indexEntryFor, indexKeyProblem } from '../indexes/index-entry.js';
import type { Table } from './table.js';

export function checkIndexKeys(table: Table, item: Item): void {
  if (!table.hasIndexes) return;
  for (const ix of table.def.LocalSecondaryIndexes) indexEntryFor(ix, table.keySchema, item, 'reject');
  for (const gsi of table.globalIndexes) if (gsi.def.IndexStatus === 'ACTIVE') indexEntryFor(gsi.def, table.keySchema, item, 'reject');
}

/**
 * The same rules for the attributes an update expression set (`updatedNew`, top-level names), in
 * the service's update-path wording, which names neither the index nor the attribute (spec §4.4);
 * a put of the same item gets checkIndexKeys' wording. Runs before the write, so it wins over it.
 */
export function checkUpdatedIndexKeys(table: Table, updatedNew: Item): void {
  if (!table.hasIndexes) return;
  for (const index of table.def.LocalSecondaryIndexes) checkUpdatedKeys(index.keySchema, updatedNew);
  for (const gsi of table.globalIndexes) if (gsi.def.IndexStatus === 'ACTIVE') checkUpdatedKeys(gsi.def.keySchema, updatedNew);
}

function checkUpdatedKeys(keySchema: Table['keySchema'], updatedNew: Item): void {
  for (const attr of [keySchema.partitionKey, keySchema.sortKey]) {
    const value = attr && updatedNew[attr.name];
    if (attr === undefined || value === undefined) continue;
    switch (indexKeyProblem(attr, value, attr === keySchema.partitionKey)) {
      case 'type':
        throw new ValidationException('The update expression attempted to update the secondary index key to unsupported type');
      case 'empty':
        throw new ValidationException(
          `One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty ${'S' in value ? 'string' : 'binary'} value.`,
        );
      case 'size':
        throw new ValidationException('The update expression attempted to update the secondary index key beyond allowed size limits');
      case undefined:
    }
  }
}
