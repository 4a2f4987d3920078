/**
 * The bridge's own table, where each device's DedupState lives next to its readings so both commit
 * in one BatchWriteItem (one LMDB txn): a reading is durable iff the state saying so is durable.
 *
 *   table `_bridge`:  partition key `table` (S) = the readings table
 *                     sort key `deviceId` (S)
 *                     boot (N, absent = 0: a version 1 node), settled (N),
 *                     durable (NS, absent when empty), updatedAt (N, ms)
 * One item per device: a greater boot overwrites it, so an old boot's state is never kept.
 *
 * One bridge process per readings table: the state is cached in memory after the first read.
 */
import type { Edgetable } from '../edgetable.js';
import type { WireItem } from '../model/attribute-value.js';
import { ResourceNotFoundException } from '../model/errors.js';
import { EMPTY_DEDUP_STATE, type DedupState } from './dedup-state.js';

export const BRIDGE_STATE_TABLE = '_bridge';

/** Creates the state table if absent. */
export function ensureStateTable(db: Edgetable, name: string = BRIDGE_STATE_TABLE): void {
  if (tableExists(db, name)) return;
  db.createTable({
    TableName: name,
    KeySchema: [
      { AttributeName: 'table', KeyType: 'HASH' },
      { AttributeName: 'deviceId', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'table', AttributeType: 'S' },
      { AttributeName: 'deviceId', AttributeType: 'S' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  });
}

export function tableExists(db: Edgetable, name: string): boolean {
  try {
    db.describeTable({ TableName: name });
    return true;
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return false;
    throw e;
  }
}

/** The durable state of one device (EMPTY_DEDUP_STATE for a device never seen). */
export function loadDedupState(db: Edgetable, stateTable: string, table: string, deviceId: string): DedupState {
  const out = db.getItem({
    TableName: stateTable,
    Key: { table: { S: table }, deviceId: { S: deviceId } },
    ConsistentRead: true,
  }) as { Item?: WireItem };
  const item = out.Item;
  if (!item) return EMPTY_DEDUP_STATE;
  const boot = item.boot && 'N' in item.boot ? Number(item.boot.N) : 0;
  const settled = item.settled && 'N' in item.settled ? Number(item.settled.N) : 0;
  const durable = item.durable && 'NS' in item.durable ? item.durable.NS.map(Number).sort((a, b) => a - b) : [];
  return Object.freeze({ boot, settled, durable: Object.freeze(durable) });
}

/** The PutRequest that records `state` for one device. */
export function stateItem(table: string, deviceId: string, state: DedupState, now: number): WireItem {
  const item: WireItem = {
    table: { S: table },
    deviceId: { S: deviceId },
    settled: { N: String(state.settled) },
    updatedAt: { N: String(now) },
  };
  if (state.boot !== 0) item.boot = { N: String(state.boot) };
  if (state.durable.length > 0) item.durable = { NS: state.durable.map(String) };
  return item;
}
