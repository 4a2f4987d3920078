/**
 * Wire -> internal conversion of AttributeValues and items, with every DynamoDB rule and message
 * (../shared/spec/DYNAMODB.md §1.1-§1.4, §8.4).
 *
 * Two error kinds, as the service has them:
 * - SerializationException: the JSON shape is wrong (`{N: 123}`, a list where a map belongs).
 *   The service rejects these while deserializing, before any validation, so when a
 *   ValidationException is about to escape, the input is first rescanned for shape errors
 *   (error path only; the happy path walks the value once).
 * - ValidationException: the shape is right but a rule is broken (empty set, bad number, ...).
 *
 * Members whose value is `undefined` or `null` count as absent (JSON `null` is an absent member
 * to the service). Unknown members are ignored, as the service's deserializer ignores them.
 * Binary may be given as base64 text or as a Uint8Array; a given Uint8Array is kept by reference
 * (ownership passes to the returned value).
 * Serialization texts are the service's (Coral's), from dynalite's live captures.
 */
import type { AttributeType, AttributeValue, Item } from './attribute-value.js';
import { encodeBase64 } from './binary.js';
import { INVALID_PARAMETERS, ValidationException, invalid } from './errors.js';
import { MAX_ATTRIBUTE_NAME_BYTES, MAX_NESTING_DEPTH } from './limits.js';
import { numberSize, parseNumber } from './number.js';
import { compareBytes } from './compare-values.js';
import { SET_ORDER, hasDuplicates, sortMembers } from './set-order.js';
import { setOwn } from './set-own.js';
import { compareUtf8, isWellFormedUtf16, utf8ByteLength } from './utf8.js';
import type { ValueLayer } from './value-layer.js';
import {
  expectBlob,
  expectBoolean,
  expectList,
  expectMap,
  expectSetElement,
  expectString,
  expectValueObject,
  isTypeKey,
  scanMap,
  scanValue,
  toBytes,
} from './wire-shape.js';

const EMPTY_VALUE = 'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes';
const MULTIPLE_TYPES =
  'Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes';
const NULL_NOT_TRUE = `${INVALID_PARAMETERS}Null attribute value types must have the value of true`;
const EMPTY_SS = `${INVALID_PARAMETERS}An string set  may not be empty`;
const EMPTY_NS = `${INVALID_PARAMETERS}An number set  may not be empty`;
const EMPTY_BS = `${INVALID_PARAMETERS}Binary sets should not be empty`;
const NS_DUPLICATES = `${INVALID_PARAMETERS}Input collection contains duplicates.`;
const NS_DUPLICATES_OLDER = 'Input collection contains duplicates';
const NESTING =
  'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';
/** DynamoDB Local's texts for these two (live wording unverified; the live text names 65535/65536). */
const EMPTY_NAME = 'Empty attribute name';
const NAME_TOO_LONG = 'Attribute name is too large, must be less than 65536 bytes';

/**
 * Validates one wire AttributeValue and returns its internal form.
 * @param depth nesting level of this value: 1 for a top-level attribute's value.
 * @throws SerializationException | ValidationException
 */
export function validateAttributeValue(value: unknown, depth = 1, layer: ValueLayer = 'current'): AttributeValue {
  try {
    return convertValue(value, depth, layer);
  } catch (error) {
    if (error instanceof ValidationException) scanValue(value, depth);
    throw error;
  }
}

/**
 * Validates a whole wire item (top-level names and values) and returns its internal form,
 * always a fresh object. `layer`: the checker whose wording the operation reports (value-layer.ts).
 * @throws SerializationException | ValidationException
 */
export function validateItem(item: unknown, layer: ValueLayer = 'current'): Item {
  try {
    return convertItem(item, layer);
  } catch (error) {
    if (error instanceof ValidationException) {
      scanMap(item, 0);
      // The service checks every top-level name before any value: an empty name wins over a value
      // error met first in the walk (captured against a value nested too deep).
      if (error.message !== NAME_TOO_LONG && Object.hasOwn(item as object, '') && (item as Record<string, unknown>)[''] !== undefined) throw invalid(EMPTY_NAME);
    }
    throw error;
  }
}

/**
 * Strings must be valid Unicode, as DynamoDB refuses invalid UTF-8: a lone UTF-16 surrogate has
 * no UTF-8 form (wording: edgetable's; DynamoDB's text for invalid UTF-8 is unverified).
 */
export const INVALID_STRING = `${INVALID_PARAMETERS}A string contains an unpaired UTF-16 surrogate, which is not valid UTF-8`;

function checkString(s: string): void {
  if (!isWellFormedUtf16(s)) throw invalid(INVALID_STRING);
}

/** Top-level attribute name rules: 1..65,535 UTF-8 bytes. */
export function checkAttributeName(name: string): void {
  if (name.length === 0) throw invalid(EMPTY_NAME);
  checkString(name);
  // Each UTF-16 unit is at most 3 bytes: only long names need counting.
  if (name.length * 3 > MAX_ATTRIBUTE_NAME_BYTES && utf8ByteLength(name) > MAX_ATTRIBUTE_NAME_BYTES) {
    throw invalid(NAME_TOO_LONG);
  }
}

/**
 * validateItem that also gives the item's size as item-size.ts counts it (toward the 400 KB limit
 * and capacity), summed in the same walk instead of a second one over the result: `sized.size`
 * receives it (a holder the caller may reuse), set only when the item is valid.
 * @throws SerializationException | ValidationException
 */
export function validateSizedItem(item: unknown, sized: { size: number }, layer: ValueLayer = 'current'): Item {
  const out = validateItem(item, layer);
  sized.size = size;
  return out;
}

/**
 * The size of what the conversion below has converted so far (model/item-size.ts's sum), reset by
 * convertItem: every converted value adds its own bytes, a map or list its overheads. Meaningful
 * only after a conversion that returned (a failed one may leave partial sums).
 */
let size = 0;

/**
 * Top-level names that passed checkAttributeName, with their UTF-8 byte counts: items of one table
 * repeat the same few names, so each is checked and counted once. Bounded: emptied when full.
 */
const checkedNames = new Map<string, number>();
const MAX_CHECKED_NAMES = 4096;

/** checkAttributeName, then the name's UTF-8 byte count. */
function checkedNameBytes(name: string): number {
  let bytes = checkedNames.get(name);
  if (bytes === undefined) {
    checkAttributeName(name);
    bytes = utf8ByteLength(name);
    if (checkedNames.size >= MAX_CHECKED_NAMES) checkedNames.clear();
    checkedNames.set(name, bytes);
  }
  return bytes;
}

function convertItem(item: unknown, layer: ValueLayer): Item {
  expectMap(item);
  const out: { [name: string]: AttributeValue } = {};
  const source = item as { [name: string]: unknown };
  size = 0;
  for (const name in source) {
    if (!Object.hasOwn(source, name)) continue;
    const v = source[name];
    if (v === undefined) continue;
    size += checkedNameBytes(name);
    setOwn(out, name, convertValue(v, 1, layer));
  }
  return out;
}

function convertValue(value: unknown, depth: number, layer: ValueLayer): AttributeValue {
  if (depth > MAX_NESTING_DEPTH) throw invalid(NESTING);
  if (value === null || value === undefined) throw invalid(EMPTY_VALUE);
  expectValueObject(value);
  const source = value as { [key: string]: unknown };
  let type: AttributeType | undefined;
  let count = 0;
  for (const key in source) {
    if (!isTypeKey(key) || !Object.hasOwn(source, key)) continue;
    const payload = source[key];
    if (payload === undefined || payload === null) continue;
    count++;
    if (count === 1) {
      type = key;
    } else {
      // The service validates every member's content before it complains about the count.
      if (count === 2) convertTyped(type as AttributeType, source[type as AttributeType], depth, layer);
      convertTyped(key, payload, depth, layer);
    }
  }
  if (count === 0) throw invalid(EMPTY_VALUE);
  if (count > 1) throw invalid(MULTIPLE_TYPES);
  return convertTyped(type as AttributeType, source[type as AttributeType], depth, layer);
}

function convertTyped(type: AttributeType, payload: unknown, depth: number, layer: ValueLayer): AttributeValue {
  switch (type) {
    case 'S':
      expectString(payload);
      checkString(payload as string);
      size += utf8ByteLength(payload as string);
      return { S: payload as string };
    case 'N': {
      expectString(payload);
      const n = parseNumber(payload as string, layer);
      size += numberSize(n);
      return { N: n };
    }
    case 'B': {
      const bytes = toBytes(payload);
      size += bytes.byteLength;
      return { B: bytes };
    }
    case 'BOOL':
      expectBoolean(payload);
      size += 1;
      return { BOOL: payload as boolean };
    case 'NULL':
      expectBoolean(payload);
      if (payload !== true) throw invalid(NULL_NOT_TRUE);
      size += 1;
      return { NULL: true };
    case 'SS':
      return { SS: convertStringSet(payload, layer) };
    case 'NS':
      return { NS: convertNumberSet(payload, layer) };
    case 'BS':
      return { BS: convertBinarySet(payload, layer) };
    case 'L': {
      expectList(payload);
      const list = payload as unknown[];
      const out: AttributeValue[] = new Array(list.length);
      size += 3 + list.length;
      for (let i = 0; i < list.length; i++) out[i] = convertValue(list[i], depth + 1, layer);
      return { L: out };
    }
    case 'M': {
      expectMap(payload);
      const source = payload as { [name: string]: unknown };
      const out: { [name: string]: AttributeValue } = {};
      size += 3;
      for (const name in source) {
        if (!Object.hasOwn(source, name)) continue;
        const v = source[name];
        if (v === undefined) continue;
        checkString(name);
        size += utf8ByteLength(name) + 1;
        setOwn(out, name, convertValue(v, depth + 1, layer));
      }
      return { M: out };
    }
  }
}

function convertStringSet(payload: unknown, layer: ValueLayer): readonly string[] {
  expectList(payload);
  const list = payload as unknown[];
  for (const element of list) expectSetElement(element, expectString);
  if (list.length === 0) throw invalid(EMPTY_SS);
  for (const element of list as string[]) {
    checkString(element);
    size += utf8ByteLength(element);
  }
  const strings = list as string[];
  const sorted = sortMembers(strings, SET_ORDER.SS);
  if (hasDuplicates(sorted, SET_ORDER.SS)) {
    const shown = layer === 'current' ? listedUpToRepeat(strings, compareUtf8).map((m) => `"${m}"`) : strings;
    throw invalid(`${INVALID_PARAMETERS}Input collection [${shown.join(', ')}] contains duplicates.`);
  }
  // Stored in DynamoDB's member order (set-order.ts); never the caller's own array.
  return sorted === strings ? strings.slice() : sorted;
}

function convertNumberSet(payload: unknown, layer: ValueLayer): readonly string[] {
  expectList(payload);
  const list = payload as unknown[];
  for (const element of list) expectSetElement(element, expectString);
  if (list.length === 0) throw invalid(EMPTY_NS);
  const numbers = (list as string[]).map((n) => parseNumber(n, layer));
  for (const n of numbers) size += numberSize(n);
  const sorted = sortMembers(numbers, SET_ORDER.NS);
  if (hasDuplicates(sorted, SET_ORDER.NS)) throw invalid(layer === 'current' ? NS_DUPLICATES : NS_DUPLICATES_OLDER);
  return sorted;
}

function convertBinarySet(payload: unknown, layer: ValueLayer): readonly Uint8Array[] {
  expectList(payload);
  const list = payload as unknown[];
  for (const element of list) expectSetElement(element, expectBlob);
  if (list.length === 0) throw invalid(EMPTY_BS);
  const bytes = list.map(toBytes);
  for (const b of bytes) size += b.byteLength;
  const sorted = sortMembers(bytes, SET_ORDER.BS);
  if (hasDuplicates(sorted, SET_ORDER.BS)) {
    // The current layer shows each member's canonical base64; the older one shows it as sent.
    const shown =
      layer === 'current'
        ? listedUpToRepeat(bytes, compareBytes).map((b) => `"${encodeBase64(b)}"`).join(',')
        : list.map((e) => (typeof e === 'string' ? e : encodeBase64(e as Uint8Array))).join(', ');
    throw invalid(`${INVALID_PARAMETERS}Input collection [${shown}]of type BS contains duplicates.`);
  }
  return sorted;
}

/**
 * A duplicate-holding set's members as the current layer lists them: it inserts them into a
 * sorted set and stops at the first repeat, so they read sorted up to there, then the repeat and
 * the rest as sent (`["b", "a", "b"]` -> `["a", "b", "b"]`). Error path only.
 */
function listedUpToRepeat<T>(members: readonly T[], compare: (a: T, b: T) => number): T[] {
  const sorted: T[] = [];
  for (let i = 0; i < members.length; i++) {
    const m = members[i] as T;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(sorted[mid] as T, m) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo < sorted.length && compare(sorted[lo] as T, m) === 0) return sorted.concat(members.slice(i));
    sorted.splice(lo, 0, m);
  }
  return sorted;
}
