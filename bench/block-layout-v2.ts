/**
 * Item blocks with the engine's codec (src/codec/item-block*.ts, format 2: restart points, a
 * trailer, cached header, names and shapes), for bench/block-layout.ts: the gate of decision 022's
 * step 1. Blocks are keyed by the partition id and their LAST sort key, so the block that holds or
 * would hold a sort key is the first at or after it: a point get and a window's start are one
 * `goToRange`, with no step back. An append moves its block's key (a delete and a put, mostly in
 * one leaf page); a reading that does not fit starts a new block; a put before a block's last
 * reading, or an update, re-encodes the block (split in two when it outgrows).
 *
 * With `directory`, the layout also keeps each partition's block keys (their last sort keys) in
 * memory, maintained by its own writes, and a point get is a binary search there and one exact-key
 * `getString`, no cursor: what an item store could keep per write sequence (step 2 of decision
 * 022). Valid here only because this process is the store's one writer.
 */
import { itemSize } from '../src/model/item-size.js';
import type { Item } from '../src/model/attribute-value.js';
import { appendToBlock, encodeBlock, type BlockEntry, type BlockSchema, type BlockTail } from '../src/codec/item-block-writer.js';
import { forwardItems, getBlockItem, reverseItems, sortKeyBound } from '../src/codec/item-block-reader.js';
import { blockTail, entriesWith } from '../src/codec/item-block.js';
import { key, LmdbLayout, pidOf, tsOf, wireOf, type Cursor, type Layout, type Txn, type WireItem } from './block-layouts.js';
import type { Reading } from './workload.js';

const SCHEMA: BlockSchema = { pkName: 'sensorId', pkType: 'S', skName: 'ts', skType: 'N' };

function sensorOf(r: Reading): number {
  return Number(r.sensorId.slice(7));
}

const bound = (ts: number) => sortKeyBound('N', { N: String(ts) });

export class BlockLayoutV2 extends LmdbLayout implements Layout {
  readonly name: string;
  /** Tail states by partition id, valid for the block under `last` while it has the tail's length. */
  private tails = new Map<number, { last: number; tail: BlockTail }>();
  appended = 0;
  reencoded = 0;
  tailMisses = 0;
  private scratch = Buffer.allocUnsafeSlow(64 * 1024);
  /** Per partition id, the last sort keys of its blocks, ascending (with `directory`). */
  private lasts = new Map<number, number[]>();
  constructor(
    private readonly blockBytes: number,
    private readonly directory = false,
  ) {
    super();
    this.name = `blocks-${blockBytes}-v2${directory ? '-dir' : ''}`;
  }

  private moveKey(sensor: number, from: number | undefined, to: number | undefined): void {
    let lasts = this.lasts.get(sensor);
    if (lasts === undefined) this.lasts.set(sensor, (lasts = []));
    if (from !== undefined) lasts.splice(firstAtOrAfter(lasts, from), 1);
    if (to !== undefined) lasts.splice(firstAtOrAfter(lasts, to), 0, to);
  }

  /** The block as text (see blockAt) from a string read. */
  private blockOf(text: string): Uint8Array {
    const length = 2 * text.length + 2;
    this.scratch.write(text, 0, 'utf16le');
    this.scratch[length - 2] = 0;
    this.scratch[length - 1] = 0;
    return new Uint8Array(this.scratch.buffer, this.scratch.byteOffset, length);
  }

  /**
   * The block under the cursor, read as a text value (a block ends in a zero 16-bit unit), as
   * edgetable's storage reads records (storage/text-values.ts): no native Buffer per block. Valid
   * until the next call.
   */
  private blockAt(c: Cursor): Uint8Array {
    return this.blockOf(c.getCurrentString()!);
  }

  putBatch(items: readonly Reading[]): void {
    this.write((txn) => this.cursor(txn, (c) => {
      for (const r of items) this.put(txn, c, r);
    }));
  }

  private put(txn: Txn, c: Cursor, r: Reading): void {
    const sensor = sensorOf(r);
    const item = wireOf(r) as Item;
    const entry: BlockEntry = { item, size: itemSize(item) };
    const k = c.goToRange(key(sensor, r.ts));
    if (k !== null && pidOf(k) === sensor) return this.rewrite(txn, sensor, tsOf(k), c.getCurrentBinary()!, entry);
    const prev = k === null ? c.goToLast() : c.goToPrev();
    if (prev === null || pidOf(prev) !== sensor) return this.newBlock(txn, sensor, r.ts, [entry]);
    const last = tsOf(prev);
    const block = c.getCurrentBinaryUnsafe()!;
    const kept = this.tails.get(sensor);
    let tail: BlockTail;
    if (kept !== undefined && kept.last === last && kept.tail.length === block.length) tail = kept.tail;
    else {
      this.tailMisses++;
      tail = blockTail(block);
    }
    const appended = appendToBlock(block, tail, entry, this.blockBytes);
    if (appended === undefined) return this.newBlock(txn, sensor, r.ts, [entry]);
    txn.del(this.dbi, key(sensor, last));
    txn.putBinary(this.dbi, key(sensor, r.ts), appended);
    this.moveKey(sensor, last, r.ts);
    this.tails.set(sensor, { last: r.ts, tail });
    this.appended++;
  }

  private newBlock(txn: Txn, sensor: number, _ts: number, entries: readonly BlockEntry[]): void {
    const { block, tail } = encodeBlock(SCHEMA, entries[0]!.item.sensorId as { S: string }, entries);
    const last = Number((entries[entries.length - 1]!.item.ts as { N: string }).N);
    txn.putBinary(this.dbi, key(sensor, last), block);
    this.moveKey(sensor, undefined, last);
    this.tails.set(sensor, { last, tail });
  }

  /** Re-encodes the block keyed `last` with `entry` put in; split in two when it outgrows a block. */
  private rewrite(txn: Txn, sensor: number, last: number, block: Uint8Array, entry: BlockEntry): void {
    this.reencoded++;
    const entries = entriesWith(block, entry);
    const { block: encoded } = encodeBlock(SCHEMA, entry.item.sensorId as { S: string }, entries);
    this.tails.delete(sensor);
    if (encoded.length <= this.blockBytes) return txn.putBinary(this.dbi, key(sensor, last), encoded);
    const half = entries.length >> 1;
    txn.del(this.dbi, key(sensor, last));
    this.moveKey(sensor, last, undefined);
    this.newBlock(txn, sensor, 0, entries.slice(0, half));
    this.newBlock(txn, sensor, 0, entries.slice(half));
    this.tails.delete(sensor);
  }

  window(sensor: number, from: number, to: number): WireItem[] {
    const lo = bound(from);
    const hi = bound(to);
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        const out: WireItem[] = [];
        const visit = (it: unknown) => void out.push(it as WireItem);
        for (let k = c.goToRange(key(sensor, from)); k !== null && pidOf(k) === sensor; k = c.goToNext()) {
          if (!forwardItems(this.blockAt(c), lo, hi, true, visit)) break;
        }
        return out;
      }),
    );
  }

  latest(sensor: number, count: number): WireItem[] {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        const out: WireItem[] = [];
        const visit = (it: unknown) => (out.push(it as WireItem), out.length < count);
        const after = c.goToRange(key(sensor + 1, 0));
        for (let k = after === null ? c.goToLast() : c.goToPrev(); k !== null && pidOf(k) === sensor; k = c.goToPrev()) {
          if (!reverseItems(this.blockAt(c), undefined, undefined, true, visit)) break;
        }
        return out;
      }),
    );
  }

  get(sensor: number, ts: number): WireItem | undefined {
    const at = bound(ts);
    if (this.directory) {
      const lasts = this.lasts.get(sensor) ?? [];
      const i = firstAtOrAfter(lasts, ts);
      if (i === lasts.length) return undefined;
      return this.read((txn) => {
        const text = txn.getString(this.dbi, key(sensor, lasts[i]!));
        return text === null ? undefined : (getBlockItem(this.blockOf(text), at, true)?.item as WireItem | undefined);
      });
    }
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        const k = c.goToRange(key(sensor, ts));
        if (k === null || pidOf(k) !== sensor) return undefined;
        return getBlockItem(this.blockAt(c), at, true)?.item as WireItem | undefined;
      }),
    );
  }

  scan(): number {
    return this.read((txn) =>
      this.cursor(txn, (c) => {
        let n = 0;
        const visit = () => void n++;
        for (let k = c.goToFirst(); k !== null; k = c.goToNext()) forwardItems(this.blockAt(c), undefined, undefined, true, visit);
        return n;
      }),
    );
  }

  update(sensor: number, ts: number, temperature: string): void {
    this.write((txn) =>
      this.cursor(txn, (c) => {
        const k = c.goToRange(key(sensor, ts));
        if (k === null || pidOf(k) !== sensor) return;
        const block = c.getCurrentBinary()!;
        const found = getBlockItem(block, bound(ts), false);
        if (found === undefined) return;
        const item = { ...found.item, temperature: { N: temperature } };
        this.rewrite(txn, sensor, tsOf(k), block, { item, size: itemSize(item) });
      }),
    );
  }
}

function firstAtOrAfter(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
