/**
 * Item blocks against an oracle: random append, put (insert or replace) and delete sequences over
 * random items of every type and every sort-key type, each step followed by every kind of read,
 * compared with the oracle's sorted items (test/codec/fixtures/seeded-items.ts).
 */
import { describe, expect, it } from 'vitest';
import type { Item, KeyValue } from '../../src/model/attribute-value.js';
import { itemSize } from '../../src/model/item-size.js';
import type { KeyType } from '../../src/codec/key-bytes.js';
import { appendToBlock, encodeBlock, type BlockEntry, type BlockSchema, type BlockTail } from '../../src/codec/item-block-writer.js';
import { blockItemCount, blockSortKey, forwardItems, getBlockItem, reverseItems, sortKeyBound } from '../../src/codec/item-block-reader.js';
import { blockTail, deleteFromBlock, putInBlock } from '../../src/codec/item-block.js';
import { Gen, compareKeyValues, wireItem } from './fixtures/seeded-items.js';

const SEEDS = 60;
const STEPS = 40;

type Oracle = { key: KeyValue; item: Item; size: number }[];

function skOf(item: Item, schema: BlockSchema): KeyValue {
  return item[schema.skName] as KeyValue;
}

function forward(block: Uint8Array, schema: BlockSchema, from?: KeyValue, fromExclusive = false, to?: KeyValue, toExclusive = false, asWire = false) {
  const got: { item: unknown; size: number }[] = [];
  forwardItems(block, from && sortKeyBound(schema.skType, from, fromExclusive), to && sortKeyBound(schema.skType, to, toExclusive), asWire, (item, size) => void got.push({ item, size }));
  return got;
}

function reverse(block: Uint8Array, schema: BlockSchema, from?: KeyValue, to?: KeyValue, limit = Infinity) {
  const got: { item: unknown; size: number }[] = [];
  reverseItems(block, from && sortKeyBound(schema.skType, from), to && sortKeyBound(schema.skType, to), false, (item, size) => (got.push({ item, size }), got.length < limit));
  return got;
}

function inRange(key: KeyValue, from: KeyValue | undefined, fromExclusive: boolean, to: KeyValue | undefined, toExclusive: boolean): boolean {
  if (from !== undefined) {
    const c = compareKeyValues(key, from);
    if (c < 0 || (c === 0 && fromExclusive)) return false;
  }
  if (to !== undefined) {
    const c = compareKeyValues(key, to);
    if (c > 0 || (c === 0 && toExclusive)) return false;
  }
  return true;
}

/** Every read of `block` against `oracle`. */
function checkReads(g: Gen, block: Uint8Array, schema: BlockSchema, oracle: Oracle): void {
  const all = oracle.map((e) => ({ item: e.item, size: e.size }));
  expect(blockItemCount(block)).toBe(oracle.length);
  expect(forward(block, schema)).toEqual(all);
  expect(forward(block, schema, undefined, false, undefined, false, true)).toEqual(oracle.map((e) => ({ item: wireItem(e.item), size: e.size })));
  expect(reverse(block, schema)).toEqual([...all].reverse());
  expect(blockSortKey(block, 'first')).toEqual(oracle[0]!.key);
  expect(blockSortKey(block, 'last')).toEqual(oracle[oracle.length - 1]!.key);
  const someKey = () => (g.chance(0.6) ? g.pick(oracle).key : g.keyValue(schema.skType));
  for (let i = 0; i < 4; i++) {
    const key = someKey();
    const hit = oracle.find((e) => compareKeyValues(e.key, key) === 0);
    expect(getBlockItem(block, sortKeyBound(schema.skType, key), false)).toEqual(hit && { item: hit.item, size: hit.size });
    let from: KeyValue | undefined = g.chance(0.8) ? someKey() : undefined;
    let to: KeyValue | undefined = g.chance(0.8) ? someKey() : undefined;
    if (from && to && compareKeyValues(from, to) > 0) [from, to] = [to, from];
    const fromExclusive = g.chance(0.3);
    const toExclusive = g.chance(0.3);
    const want = oracle.filter((e) => inRange(e.key, from, fromExclusive, to, toExclusive)).map((e) => ({ item: e.item, size: e.size }));
    expect(forward(block, schema, from, fromExclusive, to, toExclusive)).toEqual(want);
    const limit = 1 + g.int(10);
    const wantReverse = oracle.filter((e) => inRange(e.key, from, false, to, false)).reverse().slice(0, limit).map((e) => ({ item: e.item, size: e.size }));
    expect(reverse(block, schema, from, to, limit)).toEqual(wantReverse);
  }
}

function run(seed: number): void {
  const g = new Gen(seed);
  const skType = g.pick<KeyType>(['S', 'N', 'B']);
  const pkType = g.pick<KeyType>(['S', 'N', 'B']);
  const schema: BlockSchema = { pkName: 'pk', pkType, skName: g.pick(['sk', 'ts']), skType };
  const pk = g.keyValue(pkType);
  const entry = (key: KeyValue): BlockEntry => {
    const item = g.item(schema.pkName, pk, schema.skName, key);
    return { item, size: itemSize(item) };
  };
  let oracle: Oracle = [];
  let block: Uint8Array | undefined;
  let tail: BlockTail | undefined;
  const put = (e: BlockEntry) => {
    const key = skOf(e.item, schema);
    oracle = oracle.filter((o) => compareKeyValues(o.key, key) !== 0);
    oracle.push({ key, item: e.item, size: e.size });
    oracle.sort((a, b) => compareKeyValues(a.key, b.key));
  };
  for (let step = 0; step < STEPS; step++) {
    const action = oracle.length === 0 ? 'new' : g.pick(['append', 'append', 'append', 'put', 'delete']);
    if (action === 'new') {
      const e = entry(g.keyValue(skType));
      ({ block, tail } = encodeBlock(schema, pk, [e]));
      put(e);
    } else if (action === 'append') {
      const last = oracle[oracle.length - 1]!.key;
      let key = g.keyValue(skType);
      for (let tries = 0; compareKeyValues(key, last) <= 0 && tries < 20; tries++) key = g.keyValue(skType);
      if (compareKeyValues(key, last) <= 0) continue;
      const e = entry(key);
      // Half the time from the kept tail, half from one rebuilt from the bytes: both must write the same.
      const rebuilt = blockTail(block!);
      const kept = g.chance(0.5) && tail !== undefined && tail.length === block!.length ? tail : rebuilt;
      const itemsEnd = rebuilt.itemsEnd;
      const appended = appendToBlock(block!, kept, e)!;
      // The earlier items' bytes are kept as they were: an append does not re-encode them.
      expect(appended.subarray(0, itemsEnd)).toEqual(block!.subarray(0, itemsEnd));
      block = appended;
      tail = kept;
      put(e);
    } else if (action === 'put') {
      const e = entry(g.chance(0.5) ? g.pick(oracle).key : g.keyValue(skType));
      ({ block, tail } = putInBlock(block!, e));
      put(e);
    } else {
      const key = g.chance(0.8) ? g.pick(oracle).key : g.keyValue(skType);
      const result = deleteFromBlock(block!, key);
      const before = oracle.length;
      oracle = oracle.filter((o) => compareKeyValues(o.key, key) !== 0);
      expect(result.deleted).toBe(oracle.length < before);
      if (result.block === undefined) {
        expect(oracle).toEqual([]);
        block = undefined;
        continue;
      }
      block = result.block;
      tail = undefined;
    }
    expect(block!.length % 2).toBe(0);
    checkReads(g, block!, schema, oracle);
  }
}

describe('item block against an oracle of sorted items', () => {
  for (let seed = 1; seed <= SEEDS; seed++) it(`seed ${seed}: appends, puts and deletes, then every read`, () => run(seed));
});
