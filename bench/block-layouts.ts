/**
 * The three stores bench/block-layout.ts compares, behind one interface: raw node-lmdb with one
 * entry per reading (edgetable's record format and decoder), raw node-lmdb with item blocks
 * (bench/block-codec.ts), and better-sqlite3. Bench-only exception to "node-lmdb only in
 * storage/": these measure layouts below edgetable. better-sqlite3's is bench/sqlite-layout.ts.
 *
 * Both LMDB layouts key a partition by a 4-byte id (the sensor's number, as partition ids are
 * handed out in first-write order) and its sort key as u64be, and are handed the id: edgetable's
 * extra get of the id (table/partition-ids.ts) is left out of both alike.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { decodeRecordToWire, encodeItemRecord } from '../src/codec/item-record.js';
import type { NameDecoder, NameEncoder } from '../src/codec/attribute-name-codes.js';
import { itemSize } from '../src/model/item-size.js';
import type { Item } from '../src/model/attribute-value.js';
import { BUILD, SKIP, STOP, TailState, blockHeader, countItems, encodeNext, readBlock, scanBlock, type WireItem } from './block-codec.js';
import type { Reading } from './workload.js';
import { wireItem } from './contenders/edgetable.js';

export type { WireItem };

export interface Txn {
  getBinary(dbi: Dbi, key: Buffer): Buffer | null;
  getString(dbi: Dbi, key: Buffer): string | null;
  putBinary(dbi: Dbi, key: Buffer, value: Uint8Array): void;
  del(dbi: Dbi, key: Buffer): void;
  commit(): void;
  abort(): void;
  reset(): void;
  renew(): void;
}
export interface Cursor {
  goToRange(key: Buffer): Buffer | null;
  goToFirst(): Buffer | null;
  goToLast(): Buffer | null;
  goToNext(): Buffer | null;
  goToPrev(): Buffer | null;
  getCurrentBinary(): Buffer | null;
  /** A Buffer over the map: valid until the cursor moves or the txn ends. */
  getCurrentBinaryUnsafe(): Buffer | null;
  getCurrentString(): string | null;
  close(): void;
}
type Dbi = { close(): void };
interface Env {
  open(options: { path: string; mapSize: number; maxDbs: number }): void;
  openDbi(options: { name: string; create: boolean; keyIsBuffer: true }): Dbi;
  beginTxn(options?: { readOnly: boolean }): Txn;
  close(): void;
}
const require = createRequire(import.meta.url);
const lmdb = require('node-lmdb') as { Env: new () => Env; Cursor: new (txn: Txn, dbi: Dbi, options: { keyIsBuffer: true }) => Cursor };

/** What every layout does; reads return wire items (DynamoDB's Query output form). */
export interface Layout {
  readonly name: string;
  readonly files: string[];
  open(dir: string): void;
  /** One durable txn. */
  putBatch(items: readonly Reading[]): void;
  window(sensor: number, from: number, to: number): WireItem[];
  latest(sensor: number, count: number): WireItem[];
  get(sensor: number, ts: number): WireItem | undefined;
  scan(): number;
  /** One durable txn replacing the reading's temperature (what an UpdateItem SET of one reading costs). */
  update(sensor: number, ts: number, temperature: string): void;
  close(): void;
}

/** The reading as edgetable's Query returns it (the contenders' own mapping). */
export const wireOf: (r: Reading) => WireItem = wireItem;

function sensorOf(r: Reading): number {
  return Number(r.sensorId.slice(7));
}

export const keyScratch = Buffer.alloc(12);
export function key(pid: number, ts: number, into = keyScratch): Buffer {
  into.writeUInt32BE(pid, 0);
  into.writeUInt32BE(Math.floor(ts / 2 ** 32), 4);
  into.writeUInt32BE(ts >>> 0, 8);
  return into;
}
export function pidOf(k: Buffer): number {
  return k.readUInt32BE(0);
}
export function tsOf(k: Buffer): number {
  return k.readUInt32BE(4) * 2 ** 32 + k.readUInt32BE(8);
}

export abstract class LmdbLayout {
  protected env: Env | undefined;
  protected dbi!: Dbi;
  private reader: Txn | undefined;
  files: string[] = [];
  open(dir: string): void {
    this.env = new lmdb.Env();
    this.env.open({ path: dir, mapSize: 4 * 2 ** 30, maxDbs: 2 });
    this.dbi = this.env.openDbi({ name: 'items', create: true, keyIsBuffer: true });
    this.files = [join(dir, 'data.mdb')];
  }
  /** Time spent in write txns before their commits: the CPU cost of a write without its flushes. */
  bodyMs = 0;
  protected write<T>(fn: (txn: Txn) => T): T {
    const txn = this.env!.beginTxn();
    try {
      const t0 = performance.now();
      const out = fn(txn);
      this.bodyMs += performance.now() - t0;
      txn.commit();
      return out;
    } catch (e) {
      txn.abort();
      throw e;
    }
  }
  protected read<T>(fn: (txn: Txn) => T): T {
    if (this.reader) this.reader.renew();
    else this.reader = this.env!.beginTxn({ readOnly: true });
    try {
      return fn(this.reader);
    } finally {
      this.reader.reset();
    }
  }
  protected cursor<T>(txn: Txn, fn: (c: Cursor) => T): T {
    const c = new lmdb.Cursor(txn, this.dbi, { keyIsBuffer: true });
    try {
      return fn(c);
    } finally {
      c.close();
    }
  }
  /** Entries in the store (for a block layout, its blocks). */
  blockCount(): number {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        let n = 0;
        for (let k = c.goToFirst(); k !== null; k = c.goToNext()) n++;
        return n;
      }),
    );
  }
  close(): void {
    this.reader?.abort();
    this.reader = undefined;
    this.dbi.close();
    this.env?.close();
    this.env = undefined;
  }
}

/** The table's attribute-name dictionary, as edgetable codes non-key names (codec/attribute-name-codes.ts). */
class Names implements NameEncoder, NameDecoder {
  private codes = new Map<string, number>();
  private names: string[] = [];
  codeOf(name: string): number | undefined {
    if (name === 'sensorId' || name === 'ts') return undefined;
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.length;
      this.codes.set(name, code);
      this.names.push(name);
    }
    return code;
  }
  knownName(code: number): string | undefined {
    return this.names[code];
  }
  nameOf(code: number): string | undefined {
    return this.names[code];
  }
}

/** One entry per reading; values are edgetable's item records, read as text values like its store does. */
export class PerItemLayout extends LmdbLayout implements Layout {
  readonly name = 'per-item';
  private names = new Names();
  private scratch = Buffer.allocUnsafeSlow(64 * 1024);
  private endKey = Buffer.alloc(12);

  /** The record under the cursor, as edgetable's text-value read gives it (storage/text-values.ts). */
  private record(c: Cursor): Uint8Array {
    const text = c.getCurrentString()!;
    const length = 2 * text.length + 2;
    this.scratch.write(text, 0, 'utf16le');
    this.scratch[length - 2] = 0;
    this.scratch[length - 1] = 0;
    return new Uint8Array(this.scratch.buffer, this.scratch.byteOffset, length);
  }
  private decode(c: Cursor): WireItem {
    return decodeRecordToWire(this.record(c), this.names) as WireItem;
  }
  private encode(item: WireItem): Uint8Array {
    return encodeItemRecord(item as Item, itemSize(item as Item), this.names);
  }
  putBatch(items: readonly Reading[]): void {
    this.write((txn) => {
      for (const r of items) txn.putBinary(this.dbi, key(sensorOf(r), r.ts), this.encode(wireOf(r)));
    });
  }
  window(sensor: number, from: number, to: number): WireItem[] {
    const end = key(sensor, to, this.endKey);
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        const out: WireItem[] = [];
        for (let k = c.goToRange(key(sensor, from)); k !== null && compare(k, end) <= 0; k = c.goToNext()) out.push(this.decode(c));
        return out;
      }),
    );
  }
  latest(sensor: number, count: number): WireItem[] {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        const out: WireItem[] = [];
        const after = c.goToRange(key(sensor + 1, 0));
        for (let k = after === null ? c.goToLast() : c.goToPrev(); k !== null && pidOf(k) === sensor && out.length < count; k = c.goToPrev()) out.push(this.decode(c));
        return out;
      }),
    );
  }
  get(sensor: number, ts: number): WireItem | undefined {
    return this.read((txn) => {
      const v = txn.getBinary(this.dbi, key(sensor, ts));
      return v === null ? undefined : (decodeRecordToWire(v, this.names) as WireItem);
    });
  }
  scan(): number {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        let n = 0;
        for (let k = c.goToFirst(); k !== null; k = c.goToNext()) if (this.decode(c)) n++;
        return n;
      }),
    );
  }
  update(sensor: number, ts: number, temperature: string): void {
    this.write((txn) => {
      const k = key(sensor, ts);
      const v = txn.getBinary(this.dbi, k);
      if (v === null) return;
      const item = decodeRecordToWire(v, this.names) as WireItem;
      item.temperature = { N: temperature };
      txn.putBinary(this.dbi, k, this.encode(item));
    });
  }
}

/**
 * Item blocks: a partition's items in runs of at most BLOCK_BYTES, keyed by the partition id and
 * the first item's sort key. A reading after the last of its block is appended (the block's bytes
 * plus the new item's); one that does not fit starts a new block; anything else (out of order, a
 * replace) re-encodes its block and splits it in two when it outgrows BLOCK_BYTES.
 */
export class BlockLayout extends LmdbLayout implements Layout {
  readonly name: string;
  /** Tail states of blocks, by partition id, valid while the block has that length (one writer). */
  private tails = new Map<number, { base: number; state: TailState }>();
  appended = 0;
  reencoded = 0;
  tailMisses = 0;
  private scratch = Buffer.allocUnsafeSlow(16 * 1024);
  constructor(
    private readonly blockBytes: number,
    private readonly keepTails: boolean,
  ) {
    super();
    this.name = `blocks-${blockBytes}`;
  }

  /** Positions `c` on the block that holds or would hold (sensor, ts): the last with base <= ts; its key, or null. */
  private floor(c: Cursor, sensor: number, ts: number): Buffer | null {
    const k = c.goToRange(key(sensor, ts));
    if (k !== null && pidOf(k) === sensor && tsOf(k) === ts) return k;
    const prev = k === null ? c.goToLast() : c.goToPrev();
    return prev !== null && pidOf(prev) === sensor ? prev : null;
  }

  putBatch(items: readonly Reading[]): void {
    this.write((txn) => this.cursor(txn, (c) => {
      for (const r of items) this.put(txn, c, r);
    }));
  }

  private put(txn: Txn, c: Cursor, r: Reading): void {
    const sensor = sensorOf(r);
    const item = wireOf(r);
    const size = itemSize(item as Item);
    const at = this.floor(c, sensor, r.ts);
    if (at === null) return this.newBlock(txn, sensor, r.ts, item, size);
    const base = tsOf(at);
    const block = c.getCurrentBinaryUnsafe()!;
    let state: TailState;
    const kept = this.tails.get(sensor);
    if (this.keepTails && kept !== undefined && kept.base === base && kept.state.length === block.length) state = kept.state;
    else {
      this.tailMisses++;
      state = scanBlock(block, base);
    }
    if (r.ts <= state.lastKey) return this.rewrite(txn, sensor, base, block, item, r.ts, size);
    const bytes = encodeNext(state, item, r.ts, size);
    if (block.length + bytes.length > this.blockBytes) return this.newBlock(txn, sensor, r.ts, item, size);
    // The block's bytes and the new item's, one copy each: the block is not re-encoded.
    const length = block.length + bytes.length;
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafeSlow(2 * length);
    this.scratch.set(block, 0);
    this.scratch.set(bytes, block.length);
    txn.putBinary(this.dbi, key(sensor, base), this.scratch.subarray(0, length));
    this.appended++;
    if (this.keepTails) this.tails.set(sensor, { base, state });
  }

  private newBlock(txn: Txn, sensor: number, ts: number, item: WireItem, size: number): void {
    const state = new TailState();
    const head = blockHeader(state, 'sensorId', (item.sensorId as { S: string }).S, 'ts', ts);
    const bytes = encodeNext(state, item, ts, size);
    const value = Buffer.allocUnsafe(head.length + bytes.length);
    value.set(head, 0);
    value.set(bytes, head.length);
    txn.putBinary(this.dbi, key(sensor, ts), value);
    if (this.keepTails) this.tails.set(sensor, { base: ts, state });
  }

  /** Re-encodes the block at `base` with `item` put in (inserted or replacing), split when it outgrows a block. */
  private rewrite(txn: Txn, sensor: number, base: number, block: Uint8Array, item: WireItem, ts: number, size: number): void {
    this.reencoded++;
    const items: { key: number; size: number; item: WireItem }[] = [];
    let nextSize = 0;
    readBlock(block, base, (_k, s) => ((nextSize = s), BUILD), (it) => items.push({ key: Number((it.ts as { N: string }).N), size: nextSize, item: it }));
    const i = items.findIndex((e) => e.key >= ts);
    if (i >= 0 && items[i]!.key === ts) items[i] = { key: ts, size, item };
    else items.splice(i < 0 ? items.length : i, 0, { key: ts, size, item });
    const encoded = encodeRun(items);
    if (encoded.length <= this.blockBytes) {
      if (items[0]!.key !== base) txn.del(this.dbi, key(sensor, base));
      txn.putBinary(this.dbi, key(sensor, items[0]!.key), encoded);
    } else {
      const half = items.length >> 1;
      if (items[0]!.key !== base) txn.del(this.dbi, key(sensor, base));
      txn.putBinary(this.dbi, key(sensor, items[0]!.key), encodeRun(items.slice(0, half)));
      txn.putBinary(this.dbi, key(sensor, items[half]!.key), encodeRun(items.slice(half)));
    }
    this.tails.delete(sensor);
  }

  window(sensor: number, from: number, to: number): WireItem[] {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        const out: WireItem[] = [];
        const visit = (it: WireItem) => void out.push(it);
        const want = (k: number) => (k < from ? SKIP : k > to ? STOP : BUILD);
        // A window starting before the partition's first block starts at that block.
        for (let k = this.floor(c, sensor, from) ?? c.goToRange(key(sensor, from)); k !== null && pidOf(k) === sensor; k = c.goToNext()) {
          const base = tsOf(k);
          if (base > to) break;
          readBlock(c.getCurrentBinaryUnsafe()!, base, want, visit);
        }
        return out;
      }),
    );
  }
  latest(sensor: number, count: number): WireItem[] {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        const out: WireItem[] = [];
        const after = c.goToRange(key(sensor + 1, 0));
        for (let k = after === null ? c.goToLast() : c.goToPrev(); k !== null && pidOf(k) === sensor && out.length < count; k = c.goToPrev()) {
          const block = c.getCurrentBinaryUnsafe()!;
          const base = tsOf(k);
          const n = countItems(block, base);
          const wanted = count - out.length;
          let i = 0;
          const found: WireItem[] = [];
          readBlock(block, base, () => (i++ < n - wanted ? SKIP : BUILD), (it) => void found.push(it));
          for (let j = found.length - 1; j >= 0; j--) out.push(found[j]!);
        }
        return out;
      }),
    );
  }
  get(sensor: number, ts: number): WireItem | undefined {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        const at = this.floor(c, sensor, ts);
        if (at === null) return undefined;
        let found: WireItem | undefined;
        readBlock(c.getCurrentBinaryUnsafe()!, tsOf(at), (k) => (k < ts ? SKIP : k === ts ? BUILD : STOP), (it) => {
          found = it;
        });
        return found;
      }),
    );
  }
  scan(): number {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        let n = 0;
        const visit = () => void n++;
        const want = () => BUILD;
        for (let k = c.goToFirst(); k !== null; k = c.goToNext()) readBlock(c.getCurrentBinaryUnsafe()!, tsOf(k), want, visit);
        return n;
      }),
    );
  }
  update(sensor: number, ts: number, temperature: string): void {
    this.write((txn) =>
      this.cursor(txn, (c) => {
        const at = this.floor(c, sensor, ts);
        if (at === null) return;
        const base = tsOf(at);
        const block = c.getCurrentBinary()!;
        let found: WireItem | undefined;
        readBlock(block, base, (k) => (k < ts ? SKIP : k === ts ? BUILD : STOP), (it) => {
          found = it;
        });
        if (found === undefined) return;
        found.temperature = { N: temperature };
        this.rewrite(txn, sensor, base, block, found, ts, itemSize(found as Item));
      }),
    );
  }
}

function encodeRun(items: readonly { key: number; size: number; item: WireItem }[]): Buffer {
  const state = new TailState();
  const parts: Uint8Array[] = [blockHeader(state, 'sensorId', (items[0]!.item.sensorId as { S: string }).S, 'ts', items[0]!.key)];
  for (const e of items) parts.push(encodeNext(state, e.item, e.key, e.size).slice());
  return Buffer.concat(parts);
}

function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
