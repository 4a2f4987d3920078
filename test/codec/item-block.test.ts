import { describe, expect, it } from 'vitest';
import type { Item, KeyValue } from '../../src/model/attribute-value.js';
import { itemSize } from '../../src/model/item-size.js';
import { readLayout } from '../../src/codec/item-block-format.js';
import { appendToBlock, encodeBlock, type BlockEntry, type BlockSchema } from '../../src/codec/item-block-writer.js';
import { blockItemCount, forwardItems, getBlockItem, reverseItems, sortKeyBound } from '../../src/codec/item-block-reader.js';
import { blockTail, decodeBlockEntries, deleteFromBlock, putInBlock } from '../../src/codec/item-block.js';
import { wireItem } from './fixtures/seeded-items.js';

const readings: BlockSchema = { pkName: 'sensorId', pkType: 'S', skName: 'ts', skType: 'N' };
const pk = { S: 'sensor-0001' };

function reading(i: number): BlockEntry {
  const item: Item = {
    sensorId: pk,
    ts: { N: String(1_733_500_000_000 + i * 60_000) },
    temperature: { N: (20 + (i % 7) / 4).toString() },
    status: { S: i % 5 === 0 ? 'warn' : 'ok' },
    location: { S: 'site-03/building-2/room-117' },
  };
  return { item, size: itemSize(item) };
}

function blockOf(n: number): Uint8Array {
  const { block, tail } = encodeBlock(readings, pk, [reading(0)]);
  let b = block;
  for (let i = 1; i < n; i++) b = appendToBlock(b, tail, reading(i))!;
  return b;
}

const all = (block: Uint8Array) => decodeBlockEntries(block).map((e) => e.item);
const ts = (i: number) => sortKeyBound('N', reading(i).item.ts as KeyValue);

describe('item block: every DynamoDB type', () => {
  const item: Item = {
    pk: { B: new Uint8Array([0, 1, 255]) },
    sk: { S: 'a/b' },
    s: { S: 'text é 😀' },
    empty: { S: '' },
    n: { N: '-0.000123' },
    big: { N: '12345678901234567890123456789012345678' },
    b: { B: new Uint8Array([0, 0, 7]) },
    t: { BOOL: true },
    f: { BOOL: false },
    z: { NULL: true },
    l: { L: [{ N: '1' }, { S: 'x' }, { L: [] }, { M: { k: { NULL: true } } }] },
    m: { M: { inner: { SS: ['a', 'b'] }, '': { N: '0' } } },
    ss: { SS: ['x', 'y'] },
    ns: { NS: ['1', '2.5', '-3'] },
    bs: { BS: [new Uint8Array([1]), new Uint8Array([])] },
  };
  const schema: BlockSchema = { pkName: 'pk', pkType: 'B', skName: 'sk', skType: 'S' };
  const { block } = encodeBlock(schema, item.pk as KeyValue, [{ item, size: itemSize(item) }]);

  it("reads back as the engine's Item, binary as bytes", () => {
    expect(getBlockItem(block, sortKeyBound('S', { S: 'a/b' }), false)).toEqual({ item, size: itemSize(item) });
  });
  it('reads back as a response carries it, binary as base64', () => {
    expect(getBlockItem(block, sortKeyBound('S', { S: 'a/b' }), true)?.item).toEqual(wireItem(item));
  });
});

describe('item block: layout', () => {
  it('is a text value: even in length, ending in a zero 16-bit unit', () => {
    for (let n = 1; n < 12; n++) {
      const block = blockOf(n);
      expect(block.length % 2).toBe(0);
      expect([...block.subarray(-2)]).toEqual([0, 0]);
    }
  });

  it('has a restart point every 8 items and counts its items in the trailer', () => {
    const block = blockOf(17);
    expect(readLayout(block).restartCount).toBe(3);
    expect(blockItemCount(block)).toBe(17);
  });

  it('reads an item from its restart point on: damage to the segment before leaves it readable', () => {
    const block = blockOf(20);
    const damaged = block.slice();
    const { restartsAt } = readLayout(block);
    const restart = (r: number) => damaged[restartsAt + 2 * r]! | (damaged[restartsAt + 2 * r + 1]! << 8);
    // Items 8..15 define no string (items 0 and 1 did): overwrite them, all but item 8's key (the
    // binary search reads it), with bytes that are no valid item.
    for (let at = restart(1) + 12; at < restart(2); at++) damaged[at] = 0xff;
    expect(() => all(damaged)).toThrow(RangeError);
    expect(getBlockItem(damaged, ts(17), true)?.item).toEqual(reading(17).item);
    expect(getBlockItem(damaged, ts(3), true)?.item).toEqual(reading(3).item);
  });

  it("keeps each item's DynamoDB size", () => {
    const sizes: number[] = [];
    forwardItems(blockOf(10), undefined, undefined, false, (_, size) => void sizes.push(size));
    expect(sizes).toEqual(Array.from({ length: 10 }, (_, i) => reading(i).size));
  });

  it('writes a repeating reading in a few bytes: names once per block, strings once, integer keys as deltas', () => {
    const ten = blockOf(10).length;
    const twenty = blockOf(20).length;
    expect((twenty - ten) / 10).toBeLessThan(12);
  });

  it('stores S sort keys by the prefix they share with the previous key', () => {
    const schema: BlockSchema = { pkName: 'pk', pkType: 'S', skName: 'sk', skType: 'S' };
    const entries = Array.from({ length: 8 }, (_, i) => ({ item: { pk: { S: 'p' }, sk: { S: `site-03/building-2/room-117/2026-12-07T14:00:0${i}Z` } }, size: 1 }));
    const { block } = encodeBlock(schema, { S: 'p' }, entries);
    const keyBytes = entries.reduce((n, e) => n + (e.item.sk as { S: string }).S.length, 0);
    expect(block.length).toBeLessThan(keyBytes / 3);
    expect(all(block)).toEqual(entries.map((e) => e.item));
  });
});

describe('item block: appends', () => {
  it("leaves the earlier items' bytes as they were", () => {
    const before = blockOf(9);
    const tail = blockTail(before);
    const end = tail.itemsEnd;
    const after = appendToBlock(before, tail, reading(9))!;
    expect(after.subarray(0, end)).toEqual(before.subarray(0, end));
    expect(all(after)).toEqual(Array.from({ length: 10 }, (_, i) => reading(i).item));
  });

  it('writes the same bytes from a kept tail as from one rebuilt from the block', () => {
    const { block, tail } = encodeBlock(readings, pk, [reading(0)]);
    let kept = block;
    for (let i = 1; i < 19; i++) {
      const rebuilt = appendToBlock(kept, blockTail(kept), reading(i))!;
      kept = appendToBlock(kept, tail, reading(i))!;
      expect(rebuilt).toEqual(kept);
    }
  });

  it('refuses an item whose sort key is not after the last, and one of another partition key', () => {
    const block = blockOf(3);
    expect(() => appendToBlock(block, blockTail(block), reading(2))).toThrow(/ascend/);
    const other = { ...reading(5).item, sensorId: { S: 'sensor-0002' } };
    expect(() => appendToBlock(block, blockTail(block), { item: other, size: 1 })).toThrow(/another partition key/);
  });

  it('refuses a tail state of another block', () => {
    expect(() => appendToBlock(blockOf(3), blockTail(blockOf(4)), reading(9))).toThrow(/tail state/);
  });

  it('gives undefined past the size limit and leaves the tail stale, to be rebuilt', () => {
    const block = blockOf(5);
    const tail = blockTail(block);
    expect(appendToBlock(block, tail, reading(5), block.length + 4)).toBeUndefined();
    expect(tail.length).toBe(-1);
    expect(() => appendToBlock(block, tail, reading(5))).toThrow(/tail state/);
    expect(all(appendToBlock(block, blockTail(block), reading(5))!)).toHaveLength(6);
  });
});

describe('item block: replace and delete re-encode the block', () => {
  it('replaces the item of a sort key and inserts one between others', () => {
    const block = blockOf(10);
    const changed = { ...reading(4).item, temperature: { N: '99.5' } };
    const between = { ...reading(6).item, ts: { N: String(1_733_500_000_000 + 6 * 60_000 + 1) } };
    let { block: next } = putInBlock(block, { item: changed, size: itemSize(changed) });
    ({ block: next } = putInBlock(next, { item: between, size: itemSize(between) }));
    const items = all(next);
    expect(items).toHaveLength(11);
    expect(items[4]).toEqual(changed);
    expect(items[7]).toEqual(between);
  });

  it('deletes one item, says when there was none, and leaves no block after the last', () => {
    const block = blockOf(3);
    const once = deleteFromBlock(block, reading(1).item.ts as KeyValue);
    expect(once.deleted).toBe(true);
    expect(all(once.block!)).toEqual([reading(0).item, reading(2).item]);
    expect(deleteFromBlock(once.block!, reading(1).item.ts as KeyValue)).toEqual({ block: once.block, deleted: false });
    expect(deleteFromBlock(blockOf(1), reading(0).item.ts as KeyValue)).toEqual({ block: undefined, deleted: true });
  });
});

describe('item block: reads', () => {
  const block = blockOf(30);
  const keys = (items: unknown[]) => items.map((it) => ((it as Item).ts as { N: string }).N);
  const want = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => (reading(from + i).item.ts as { N: string }).N);

  it('builds only the items in range, forward, with inclusive and exclusive bounds', () => {
    const got: unknown[] = [];
    expect(forwardItems(block, ts(9), ts(20), false, (it) => void got.push(it))).toBe(false);
    expect(keys(got)).toEqual(want(9, 20));
    got.length = 0;
    forwardItems(block, sortKeyBound('N', reading(9).item.ts as KeyValue, true), sortKeyBound('N', reading(20).item.ts as KeyValue, true), false, (it) => void got.push(it));
    expect(keys(got)).toEqual(want(10, 19));
  });

  it('says the range goes on past the block when the block runs out first', () => {
    expect(forwardItems(block, ts(25), undefined, false, () => {})).toBe(true);
    expect(forwardItems(block, ts(25), ts(40), false, () => {})).toBe(true);
  });

  it('iterates in reverse from a key, stopping when the visitor says so', () => {
    const got: unknown[] = [];
    expect(reverseItems(block, undefined, ts(17), false, (it) => (got.push(it), got.length < 10))).toBe(false);
    expect(keys(got)).toEqual(want(8, 17).reverse());
  });

  it('finds one item by its sort key, and none for a key between items', () => {
    expect(getBlockItem(block, ts(23), false)?.item).toEqual(reading(23).item);
    expect(getBlockItem(block, sortKeyBound('N', { N: '1733500000001' }), false)).toBeUndefined();
    expect(getBlockItem(block, sortKeyBound('N', { N: '-1' }), false)).toBeUndefined();
  });

  it('refuses a block of another format version and a truncated block', () => {
    const other = block.slice();
    other[0] = 1;
    expect(() => getBlockItem(other, ts(1), false)).toThrow(/format version/);
    expect(() => getBlockItem(block.subarray(0, 40), ts(1), false)).toThrow(RangeError);
  });
});
