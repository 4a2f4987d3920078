/**
 * Item values: one item as CBOR (RFC 8949), format version 1, frozen. Self-describing, so the hub
 * and the C library read it with any CBOR decoder.
 *
 *   item    = map                                   ; top-level attributes
 *   value   = S | N | B | BOOL | NULL | M | L | set
 *   S       = text string                           ; major type 3, UTF-8
 *   N       = integer                               ; major 0/1, when the canonical string is a
 *                                                   ;   safe integer (|n| <= 2^53 - 1)
 *           | tag(4) [ exponent, mantissa ]         ; decimal fraction: mantissa * 10^exponent,
 *                                                   ;   exponent int, mantissa int or tag(2)/tag(3)
 *                                                   ;   bignum; written with no trailing zeros
 *   B       = byte string                           ; major type 2
 *   BOOL    = true | false                          ; 0xF5 / 0xF4
 *   NULL    = null                                  ; 0xF6
 *   M       = map                                   ; text-string keys (attribute names) -> value
 *   L       = array of value
 *   set     = tag(258) [ 1*element ]                ; non-empty: the element type gives the set
 *                                                   ;   type: all text (SS), all bytes (BS) or
 *                                                   ;   all N (NS)
 *
 * Floats, undefined, other tags, indefinite lengths and non-text map keys are not part of the
 * format; this reader rejects them. Numbers come back as canonical strings (model/number.ts), so a
 * reader may accept non-normalised decimal fractions from other writers. Strings are UTF-8: a lone
 * surrogate is written as U+FFFD.
 *
 * Both directions are small hand-written walks of exactly this grammar (item-writer.ts,
 * item-reader.ts), measured faster than cbor-x with the pre/post walks it needs (cbor-x builds or
 * takes plain JS values, so AttributeValues need a second walk) and free of its surprises: it writes
 * integers beyond 32 bits as float64, tags Uint8Array with tag 64 by default, reads tag 4 as a
 * float and renames a "__proto__" key. The tests check the bytes against cbor-x as an independent
 * CBOR implementation, in both directions.
 */
import type { Item, WireItemOutput } from '../model/attribute-value.js';
import type { NameDecoder } from './attribute-name-codes.js';
import { readItem, readItemAttributes } from './item-reader.js';
import { writeItem } from './item-writer.js';

/**
 * Version 2 lets a base record's top-level names be codes of the table's name dictionary
 * (attribute-name-codes.ts); version 1 values are version 2 values with every name inline.
 */
export const ITEM_FORMAT_VERSION = 2;

export const TAG_DECIMAL_FRACTION = 4;
export const TAG_SET = 258;

/**
 * The CBOR bytes of `item`: a view into a shared chunk that later calls never overwrite, so it stays
 * valid and unchanged for as long as the caller holds it (holding it keeps the chunk, 16 KB, alive;
 * copy it if you keep many for long). The item must be a validated internal-form Item.
 */
export function encodeItem(item: Item): Uint8Array {
  return writeItem(item);
}

/**
 * Decodes an item to the internal form (B as Uint8Array). Never aliases `bytes`. The item is
 * `bytes[offset..]`: a record's body is read in place (item-record.ts RECORD_HEADER_BYTES).
 * `names`: the table's dictionary, required for a base record whose names may be coded.
 */
export function decodeItem(bytes: Uint8Array, offset = 0, names?: NameDecoder): Item {
  return readItem(bytes, false, offset, names) as Item;
}

/** Decodes an item to the response form (B as base64 strings). Never aliases `bytes`. */
export function decodeItemToWire(bytes: Uint8Array, offset = 0, names?: NameDecoder): WireItemOutput {
  return readItem(bytes, true, offset, names) as WireItemOutput;
}

/**
 * Decodes only the top-level attributes in `names` (a projection); the others are skipped without
 * being built. Internal form, never aliases `bytes`. Without `codes` (the table's dictionary) only
 * inline names match: enough for key attributes, which are never coded.
 */
export function decodeAttributes(bytes: Uint8Array, names: ReadonlySet<string>, offset = 0, codes?: NameDecoder): Item {
  return readItemAttributes(bytes, names, false, offset, codes) as Item;
}

/** As decodeAttributes, in the response form. */
export function decodeAttributesToWire(bytes: Uint8Array, names: ReadonlySet<string>, codes?: NameDecoder): WireItemOutput {
  return readItemAttributes(bytes, names, true, 0, codes) as WireItemOutput;
}
