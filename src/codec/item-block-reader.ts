/**
 * Reads of an item block (grammar atop item-block-writer.ts): a binary search of the restart
 * points by their keys, then a parse of the items from there (item-block-parser.ts); only items in
 * range are built, the others are parsed past (their strings and numbers are decoded only if a
 * built item repeats them). The header, the name table and each name sequence's object builder
 * are looked up, not decoded, per read (item-block-dictionary.ts).
 *
 * Items are built as the engine's internal Item (B as Uint8Array) or, with `asWire`, as a
 * response carries them (B as base64), and never alias the block, so a block read from LMDB's map
 * may go once the call returns. A visitor must not read blocks: the parse state is shared.
 */
import type { KeyValue } from '../model/attribute-value.js';
import * as numbers from './item-block-numbers.js';
import * as parser from './item-block-parser.js';
import type { Decoded, SortKeyBound } from './item-block-parser.js';
import * as writer from './item-block-writer.js';
import type { KeyType } from './key-bytes.js';
import * as format from './item-block-format.js';
import * as dictionary from './item-block-dictionary.js';

// Read once (see item-block-parser.ts): under tsx every use of an imported binding is a getter call.
const { plainIntegerOf, readPackedNumber } = numbers;
const { LAST_N, LAST_NONE, LAST_S } = writer;
const { RESTART_INTERVAL, readLayout } = format;
const { textAt } = dictionary;
const { V_N, V_S } = parser;
const p = new parser.BlockParser();

export type { Decoded, SortKeyBound };
/** Gets each item read and its DynamoDB size; false ends the read. */
export type BlockVisitor<W extends boolean> = (item: Decoded<W>, size: number) => boolean | void;

const utf8 = new TextEncoder();

export function sortKeyBound(type: KeyType, key: KeyValue, exclusive = false): SortKeyBound {
  if (!(type in key)) throw new RangeError(`item block: the sort key is not of type ${type}`);
  if (type === 'N') return { type, key, int: plainIntegerOf((key as { N: string }).N), bytes: undefined, exclusive };
  const bytes = type === 'S' ? utf8.encode((key as { S: string }).S) : (key as { B: Uint8Array }).B;
  return { type, key, int: Number.NaN, bytes, exclusive };
}

// ---- reads ------------------------------------------------------------------------------------

/**
 * Visits, in ascending order, the block's items from `from` to `to` (either open). True when the
 * block ran out before the range did (a walk goes on to the next block), false when an item past
 * `to` was reached or `visit` returned false.
 */
export function forwardItems<W extends boolean>(block: Uint8Array, from: SortKeyBound | undefined, to: SortKeyBound | undefined, asWire: W, visit: BlockVisitor<W>): boolean {
  p.open(block);
  try {
    p.startSegment(from === undefined ? 0 : p.seek(from));
    let checkFrom = from !== undefined;
    while (p.itemIndex < p.layout.itemCount) {
      if (p.itemIndex % RESTART_INTERVAL === 0) p.startSegment(p.itemIndex / RESTART_INTERVAL);
      p.parseItem();
      if (checkFrom && p.beforeFrom(from!)) continue;
      checkFrom = false;
      if (to !== undefined && p.afterTo(to)) return false;
      if (visit(p.buildItem(asWire), p.size) === false) return false;
    }
    return true;
  } finally {
    p.close();
  }
}

/**
 * Visits, in descending order, the block's items from `to` down to `from` (either open). True when
 * the block ran out before the range did (a walk goes on to the previous block), false when an
 * item before `from` was reached or `visit` returned false.
 */
export function reverseItems<W extends boolean>(block: Uint8Array, from: SortKeyBound | undefined, to: SortKeyBound | undefined, asWire: W, visit: BlockVisitor<W>): boolean {
  p.open(block);
  const items: Decoded<W>[] = [];
  const sizes: number[] = [];
  try {
    for (let r = to === undefined ? p.layout.restartCount - 1 : p.seek(to); r >= 0; r--) {
      p.startSegment(r);
      const end = Math.min(p.layout.itemCount, (r + 1) * RESTART_INTERVAL);
      let reachedFrom = false;
      items.length = 0;
      sizes.length = 0;
      while (p.itemIndex < end) {
        p.parseItem();
        if (to !== undefined && p.afterTo(to)) break;
        if (from !== undefined && p.beforeFrom(from)) {
          reachedFrom = true;
          continue;
        }
        items.push(p.buildItem(asWire));
        sizes.push(p.size);
      }
      // Built before visiting: a visitor may not read blocks while this one is parsed.
      const segmentItems = items.slice();
      const segmentSizes = sizes.slice();
      p.close();
      for (let i = segmentItems.length - 1; i >= 0; i--) if (visit(segmentItems[i]!, segmentSizes[i]!) === false) return false;
      if (reachedFrom) return false;
      if (r > 0) p.open(block);
    }
    return true;
  } finally {
    p.close();
  }
}

/** The item whose sort key equals `key`, and its size; undefined when the block has none. */
export function getBlockItem<W extends boolean>(block: Uint8Array, key: SortKeyBound, asWire: W): { item: Decoded<W>; size: number } | undefined {
  p.open(block);
  try {
    p.startSegment(p.seek(key));
    const end = Math.min(p.layout.itemCount, p.itemIndex + RESTART_INTERVAL);
    while (p.itemIndex < end) {
      p.parseItem();
      const c = p.compareKey(key);
      if (c === 0) return { item: p.buildItem(asWire), size: p.size };
      if (c > 0) return undefined;
    }
    return undefined;
  } finally {
    p.close();
  }
}

/** The number of items in the block (its footer's count). */
export function blockItemCount(block: Uint8Array): number {
  return readLayout(block).itemCount;
}

/** The block's first or last sort key. */
export function blockSortKey(block: Uint8Array, which: 'first' | 'last'): KeyValue {
  p.open(block);
  try {
    const r = which === 'first' ? 0 : p.layout.restartCount - 1;
    p.startSegment(r);
    const end = which === 'first' ? p.itemIndex + 1 : p.layout.itemCount;
    while (p.itemIndex < end) p.parseItem();
    return p.sortKeyValue(false) as KeyValue;
  } finally {
    p.close();
  }
}

/** What rebuilding a block's tail state needs from its last segment (item-block.ts blockTail). */
export type TailSegment = {
  readonly lastKey: KeyValue;
  /** An N key written as an integer delta (the next may be a delta from it). */
  readonly lastKeyIsDelta: boolean;
  readonly shape: readonly number[];
  /** Per name index: LAST_S, LAST_N or LAST_NONE, and the text of an S or N. */
  readonly lastKind: readonly number[];
  readonly lastValue: readonly string[];
};

export function tailSegment(block: Uint8Array): TailSegment {
  p.open(block);
  try {
    p.startSegment(p.layout.restartCount - 1);
    while (p.itemIndex < p.layout.itemCount) p.parseItem();
    const kinds: number[] = [];
    const texts: string[] = [];
    for (let i = 0; i < p.layout.nameCount; i++) {
      const kind = p.lastKind[i];
      const from = p.lastAt[i]!;
      const to = from + p.lastLength[i]!;
      kinds.push(kind === V_S ? LAST_S : kind === V_N ? LAST_N : LAST_NONE);
      texts.push(kind === V_S ? textAt(p.src, from, to) : kind === V_N ? readPackedNumber(p.src, from, to - from) : '');
    }
    return { lastKey: p.sortKeyValue(false) as KeyValue, lastKeyIsDelta: p.header.skType === 'N' && p.keyInt === p.keyInt, shape: p.indices.slice(0, p.count), lastKind: kinds, lastValue: texts };
  } finally {
    p.close();
  }
}
