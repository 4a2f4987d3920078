/**
 * The hub's durable down state, one record per (device, incarnation, table) in `_sync`:
 *
 *   down  key := 'd' device 0x00 incarnation 0x00 table     value := JSON DownState
 *
 * Written only after the device acknowledged what moved it (its txn committed), so a hub crash
 * resends from here and a device crash loses nothing: the device's last-writer-wins makes a resent
 * record change nothing. Keyed by incarnation: a re-flashed device starts with a base read.
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import type { BaseProgress } from './base-reader.js';
import { DOWN_STATE_PREFIX, downStateTable } from '../stream/table-sync-records.js';

export type DownState = {
  /** The subscription (hub TableId and partition keys) this state serves; another one starts over. */
  readonly fingerprint: string;
  /** The device's TableId of its copy, once it acknowledged the schema; another one starts over. */
  readonly deviceTableId?: string;
  readonly phase: 'base' | 'delta';
  /** The base read in progress (phase 'base'): its id, where it is, and the log positions it started at. */
  readonly base?: { readonly id: string; readonly progress: BaseProgress; readonly start: Readonly<Record<string, number>> };
  /** Per hub shard: the last change-log sequence delivered (or passed over) to the device. */
  readonly cursors: Readonly<Record<string, number>>;
  /**
   * Per hub shard: records at or below these sequences go to the device even when they are its own
   * writes. After a base read the device dropped what the base did not hold, which may include its
   * own writes that reached the hub meanwhile; they come back down once.
   */
  readonly echoFrom?: Readonly<Record<string, number>>;
};

const enc = new TextEncoder();
const dec = new TextDecoder();

function downKey(device: string, incarnation: string, table: string): Uint8Array {
  return enc.encode(`${DOWN_STATE_PREFIX}${device}\u0000${incarnation}\u0000${table}`);
}

export function readDownState(txn: ReadTxn, db: Database, device: string, incarnation: string, table: string): DownState | undefined {
  const raw = txn.get(db, downKey(device, incarnation, table));
  return raw ? (JSON.parse(dec.decode(raw)) as DownState) : undefined;
}

export function writeDownState(txn: WriteTxn, db: Database, device: string, incarnation: string, table: string, state: DownState): void {
  txn.put(db, downKey(device, incarnation, table), enc.encode(JSON.stringify(state)));
}

/** Every down state of `table` (any device), for the log pruner: the lowest cursor per shard. */
export function listDownStates(txn: ReadTxn, db: Database, table: string): DownState[] {
  const out: DownState[] = [];
  for (const { key, value } of txn.cursor(db, { start: enc.encode('d'), end: enc.encode('e') })) {
    if (downStateTable(key) === table) out.push(JSON.parse(dec.decode(value)) as DownState);
  }
  return out;
}
