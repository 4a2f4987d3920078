/**
 * The members PutItem, DeleteItem and UpdateItem share, read in their fixed order after the schema
 * pass: the table, ReturnValues (each operation allows its own set), the failure and capacity
 * options. One reading, so the three report a bad combination the same way.
 */
import { readReturnConsumedCapacity, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import { readReturnItemCollectionMetrics, readReturnOnFailure, readReturnValues, type ReturnOnFailure, type ReturnValues } from './item-request.js';
import { readTableName } from './table-name.js';

export type ItemWriteOptions = {
  /** TableName as the request spelt it (a name or an ARN), for ConsumedCapacity. */
  readonly requestedName: string;
  /** The table's name (an ARN resolved). */
  readonly tableName: string;
  readonly returnValues: ReturnValues;
  readonly returnOnFailure: ReturnOnFailure;
  readonly capacityMode: ReturnConsumedCapacity;
  readonly collectionAsked: boolean;
};

/** `req`: a request the schema pass has checked. */
export function readItemWriteOptions(req: Readonly<Record<string, unknown>>, allowed: readonly ReturnValues[]): ItemWriteOptions {
  const tableName = readTableName(req.TableName);
  return {
    requestedName: req.TableName as string,
    tableName,
    returnValues: readReturnValues(req.ReturnValues, allowed),
    returnOnFailure: readReturnOnFailure(req.ReturnValuesOnConditionCheckFailure),
    capacityMode: readReturnConsumedCapacity(req.ReturnConsumedCapacity),
    collectionAsked: readReturnItemCollectionMetrics(req.ReturnItemCollectionMetrics),
  };
}
