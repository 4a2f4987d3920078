/**
 * What a hub keeps in its store's `_sync` database besides the tables it merges into (the store's
 * own clock and incarnation live there too: stream/hlc.ts, stream/store-identity.ts):
 *
 *   applied  key := 'a' stream                                  value := seq:f64be
 *            the highest sequence of that stream committed here (idempotency)
 *   version  key := 'v' hubTable 0x00 itemKey (stream/item-versions.ts)
 *            the HLC, device and incarnation of the write that currently owns the item (or its
 *            tombstone), for last-writer-wins; tombstones are kept so an older put cannot
 *            resurrect a delete. Collected once older than the version horizon (collect-versions.ts).
 *   floor    key := 'w'                                         value := ms:f64be counter:u32be
 *            the newest HLC any collected version record had (0 when none was collected)
 *   gap      key := 'g' stream lastSeq:f64be                    value := JSON GapReport
 *   stream   := device 0x00 incarnation 0x00 tableId 0x00 shard:u32be
 *
 * A stream is one device store's log of one table's shard: a re-flashed store (new incarnation)
 * or a re-created table (new TableId) is a new stream whose sequences start again at 1.
 * Hub stores written before streams had an incarnation keep their old 'a' records, which no batch
 * matches any more (version 2 devices replay as new streams; last-writer-wins makes that harmless),
 * and version records without an incarnation read as incarnation ''.
 * Everything is written in the txn that applies the batch it comes from.
 */
import type { Database } from '../storage/database.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import type { Hlc } from '../stream/hlc.js';

// Version records are shared with devices that receive tables from the hub (stream/item-versions.ts).
export { compareVersions, decodeVersion, readVersion, VERSION_PREFIX, writeVersion, type Version } from '../stream/item-versions.js';

export type StreamId = { readonly device: string; readonly incarnation: string; readonly tableId: string; readonly shard: number };

export type GapReport = {
  readonly device: string;
  readonly table: string;
  readonly shard: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly records: number;
  readonly bytes: number;
  readonly reason: 'dropped by the device outbox (drop-oldest)' | 'sequence jump';
};

const enc = new TextEncoder();
const dec = new TextDecoder();

function streamKey(prefix: string, id: StreamId, extra = 0): Uint8Array {
  const head = enc.encode(`${prefix}${id.device}\u0000${id.incarnation}\u0000${id.tableId}\u0000`);
  const key = new Uint8Array(head.length + 4 + extra);
  key.set(head);
  new DataView(key.buffer).setUint32(head.length, id.shard);
  return key;
}

export function readApplied(txn: ReadTxn, db: Database, id: StreamId): number {
  const raw = txn.get(db, streamKey('a', id));
  return raw ? new DataView(raw.buffer, raw.byteOffset, 8).getFloat64(0) : 0;
}

export function writeApplied(txn: WriteTxn, db: Database, id: StreamId, seq: number): void {
  const value = new Uint8Array(8);
  new DataView(value.buffer).setFloat64(0, seq);
  txn.put(db, streamKey('a', id), value);
}

const FLOOR_KEY = enc.encode('w');

export function readVersionFloor(txn: ReadTxn, db: Database): Hlc | undefined {
  const raw = txn.get(db, FLOOR_KEY);
  if (!raw) return undefined;
  const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return { ms: v.getFloat64(0), counter: v.getUint32(8) };
}

export function writeVersionFloor(txn: WriteTxn, db: Database, hlc: Hlc): void {
  const value = new Uint8Array(12);
  const v = new DataView(value.buffer);
  v.setFloat64(0, hlc.ms);
  v.setUint32(8, hlc.counter);
  txn.put(db, FLOOR_KEY, value);
}

export function writeGap(txn: WriteTxn, db: Database, id: StreamId, gap: GapReport): void {
  const key = streamKey('g', id, 8);
  new DataView(key.buffer).setFloat64(key.length - 8, gap.lastSeq);
  txn.put(db, key, enc.encode(JSON.stringify(gap)));
}

export function readGaps(txn: ReadTxn, db: Database): GapReport[] {
  const out: GapReport[] = [];
  for (const { value } of txn.cursor(db, { start: enc.encode('g'), end: enc.encode('h') })) out.push(JSON.parse(dec.decode(value)) as GapReport);
  return out;
}
