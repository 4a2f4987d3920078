/**
 * The durable state of a table's first-sync base read (base-read.ts), kept in the table's meta
 * database (`t/<table>/meta`), so it vanishes with the table: a re-created table (a new TableId)
 * starts a new base read, and so does a re-flashed store (a new incarnation, no meta at all).
 *
 *   base read  key := 'B'
 *              value := JSON BaseState
 *
 * Contract:
 * - Written first in the txn that marks the table as synced (base-read.ts enableSyncWithBase),
 *   with the store clock ticked once in that txn: `hlc` is older than every write made after it.
 * - `cursor` is the position the hub acknowledged: every item of the partitions that start below
 *   `cursor.start`, and the items of the partition holding hash `cursor.start` whose stored key is
 *   at or below `cursor.key`, were sent and acknowledged. It only moves on an ack.
 * - `page` is the next page number: a page's records carry sequences page * BASE_PAGE_STRIDE + i
 *   (i = 1, 2, ...). Each agent start takes a new number before sending (base-read.ts
 *   beginBaseSession), so a page re-read after a crash, whose items may differ from the page the
 *   hub applied under the old number, never reuses its sequences: the hub applies it again, its
 *   records lose to the versions they already gave (never skipped, as a reused number could be).
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import type { Hlc } from '../stream/hlc.js';

/** The shard id base pages travel under: above every partition id a table can reach. */
export const BASE_SHARD = 0xffff_ffff;

/** Sequences per page number; a page never holds this many records. */
export const BASE_PAGE_STRIDE = 2 ** 20;

export type BaseCursor = { readonly start: number; readonly key?: string };

export type BaseState = {
  readonly tableId: string;
  readonly incarnation: string;
  /** The clock taken at enable: the HLC of every base record of an item without a version of its own. */
  readonly hlc: Hlc;
  /** Items the table held at enable (the progress figure's total). */
  readonly total: number;
  /** Items sent and acknowledged so far (re-sent ones after a restart are not counted twice). */
  readonly acked: number;
  readonly page: number;
  readonly cursor: BaseCursor;
  readonly startedMs: number;
  /** The table kept version records at enable (received too): items without one are the base's. */
  readonly versioned: boolean;
  /** Set once every partition was read and acknowledged, with the store clock at that moment. */
  readonly doneHlc?: Hlc;
};

const KEY = new Uint8Array([0x42]);

export function readBaseState(txn: ReadTxn, meta: Database): BaseState | undefined {
  const raw = txn.get(meta, KEY);
  return raw ? (JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')) as BaseState) : undefined;
}

export function writeBaseState(txn: WriteTxn, meta: Database, state: BaseState): void {
  txn.put(meta, KEY, Buffer.from(JSON.stringify(state), 'utf8'));
}

export function isBaseReadDone(state: BaseState | undefined): boolean {
  return state === undefined || state.doneHlc !== undefined;
}
