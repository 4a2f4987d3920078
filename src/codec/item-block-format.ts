/**
 * The constants of the item-block format (grammar atop item-block-writer.ts) and the reading of a
 * block's fixed-width end: its footer, string directory and restart array.
 */
import type { KeyType } from './key-bytes.js';

/** Version 1 was the prototype's (bench/block-codec.ts): no restarts, no trailer. */
export const BLOCK_FORMAT_VERSION = 2;
/** Every RESTART_INTERVAL-th item (0, 8, 16, ...) is encoded without reference to earlier items. */
export const RESTART_INTERVAL = 8;
/** Offsets in the trailer are u16: a block is at most this long (the item store keeps blocks of ~2,000 bytes). */
export const MAX_BLOCK_BYTES = 0xffff;
/** namesAt:u16 nameCount:u16 stringCount:u16 itemCount:u16 padded:u8 0x00 0x00 */
export const FOOTER_BYTES = 11;

/** A value's tag byte: kind << 5 | arg, arg 31 meaning a varint argument follows. */
export const TAG_ARG_BITS = 5;
export const TAG_LONG_ARG = 31;
export const KIND_S_LITERAL = 0;
export const KIND_S_REF = 1;
export const KIND_N = 2;
export const KIND_REPEAT = 3;
export const KIND_CONSTANT = 4;
export const KIND_B = 5;
export const KIND_CBOR = 6;
export const CONSTANT_FALSE = 0;
export const CONSTANT_TRUE = 1;
export const CONSTANT_NULL = 2;

/** Key types in the header. */
export const KEY_TYPE_CODES: Readonly<Record<KeyType, number>> = { S: 0, N: 1, B: 2 };
export const KEY_TYPES: readonly KeyType[] = ['S', 'N', 'B'];

/** Where a block's sections start, read from its footer. */
export type BlockLayout = {
  /** End of the items, start of the names. */
  readonly namesAt: number;
  readonly nameCount: number;
  readonly stringsAt: number;
  readonly stringCount: number;
  readonly restartsAt: number;
  readonly restartCount: number;
  readonly itemCount: number;
};

export function restartCountOf(itemCount: number): number {
  return Math.ceil(itemCount / RESTART_INTERVAL);
}

export function readU16(block: Uint8Array, at: number): number {
  return block[at]! | (block[at + 1]! << 8);
}

/** The block's sections; RangeError when the footer points outside the block. */
export function readLayout(block: Uint8Array): BlockLayout {
  const end = block.length - FOOTER_BYTES;
  if (end < 2 || block.length % 2 !== 0) throw new RangeError('item block: too short or odd in length');
  const namesAt = readU16(block, end);
  const nameCount = readU16(block, end + 2);
  const stringCount = readU16(block, end + 4);
  const itemCount = readU16(block, end + 6);
  const padded = block[end + 8]!;
  if (padded > 1 || block[end + 9] !== 0 || block[end + 10] !== 0) throw new RangeError('item block: malformed footer');
  const restartCount = restartCountOf(itemCount);
  const restartsAt = end - padded - 2 * restartCount;
  const stringsAt = restartsAt - 2 * stringCount;
  if (stringsAt < namesAt || namesAt < 2) throw new RangeError('item block: footer out of range');
  return { namesAt, nameCount, stringsAt, stringCount, restartsAt, restartCount, itemCount };
}
