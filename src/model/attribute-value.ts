/**
 * DynamoDB's ten attribute types as a discriminated union.
 *
 * Two shapes exist:
 * - `AttributeValue` is the engine's internal, validated form: numbers are canonical decimal strings
 *   (see number.ts), binary values are `Uint8Array`, sets are non-empty and duplicate-free.
 * - `WireAttributeValue` is what callers send and receive: binary values are base64 strings on the
 *   wire (requests may also give a `Uint8Array`), numbers are any accepted numeric literal.
 *
 * Every value that passes `validateAttributeValue` is an `AttributeValue`; nothing else is.
 */

export type AttributeValue =
  | { readonly S: string }
  | { readonly N: string }
  | { readonly B: Uint8Array }
  | { readonly BOOL: boolean }
  | { readonly NULL: true }
  | { readonly M: { readonly [name: string]: AttributeValue } }
  | { readonly L: readonly AttributeValue[] }
  | { readonly SS: readonly string[] }
  | { readonly NS: readonly string[] }
  | { readonly BS: readonly Uint8Array[] };

/** A whole item or a key: attribute name -> value. */
export type Item = { readonly [name: string]: AttributeValue };

export type WireBinary = string | Uint8Array;

export type WireAttributeValue =
  | { S: string }
  | { N: string }
  | { B: WireBinary }
  | { BOOL: boolean }
  | { NULL: boolean }
  | { M: { [name: string]: WireAttributeValue } }
  | { L: WireAttributeValue[] }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: WireBinary[] };

export type WireItem = { [name: string]: WireAttributeValue };

/**
 * A value as a response carries it (toWireValue, the wire decoders of codec/): binary always as
 * base64 text, NULL always true. Structurally api/'s AttributeValueOutput, so an operation's
 * response type is checked against the public one without a cast.
 */
export type WireValueOutput =
  | { S: string }
  | { N: string }
  | { B: string }
  | { BOOL: boolean }
  | { NULL: true }
  | { M: { [name: string]: WireValueOutput } }
  | { L: WireValueOutput[] }
  | { SS: string[] }
  | { NS: string[] }
  | { BS: string[] };

export type WireItemOutput = { [name: string]: WireValueOutput };

/** The type descriptor of a value: the single key of its object. */
export type AttributeType = 'S' | 'N' | 'B' | 'BOOL' | 'NULL' | 'M' | 'L' | 'SS' | 'NS' | 'BS';

/** Types a table or index key attribute may have. */
export type ScalarAttributeType = 'S' | 'N' | 'B';

export const ATTRIBUTE_TYPES: readonly AttributeType[] = ['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS'];

/** The type of a validated value. Validated values carry exactly one key, so the first is it. */
export function typeOf(value: AttributeValue): AttributeType {
  for (const key in value) return key as AttributeType;
  throw new TypeError('AttributeValue without a type');
}

/** A key value: the only types allowed in a table or index key. */
export type KeyValue = { readonly S: string } | { readonly N: string } | { readonly B: Uint8Array };
