/**
 * The JSON shape of wire AttributeValues: each check throws the SerializationException the
 * service (Coral) throws when a member has the wrong JSON type, with its texts (dynalite's live
 * captures). `scanValue` / `scanMap` walk a whole input for the first such error; the validator
 * runs them on its error path, because the service rejects shape errors before validating.
 */
import type { AttributeType } from './attribute-value.js';
import { decodeBase64 } from './binary.js';
import { SerializationException } from './errors.js';

const START_OF_MAP = 'Start of structure or map found where not expected';
const UNEXPECTED_FIELD = 'Unexpected field type';
const UNEXPECTED_VALUE = 'Unexpected value type in payload';
const LIST_AS_MAP =
  'Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>';
const LIST_AS_VALUE = 'Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue';

/** Shape scans stop descending here so hostile nesting cannot exhaust the stack. */
const MAX_SCAN_DEPTH = 256;

export function isTypeKey(key: string): key is AttributeType {
  switch (key) {
    case 'S':
    case 'N':
    case 'B':
    case 'BOOL':
    case 'NULL':
    case 'M':
    case 'L':
    case 'SS':
    case 'NS':
    case 'BS':
      return true;
    default:
      return false;
  }
}

/** Bytes of a B or BS member: a Uint8Array as given (by reference), else strict base64. */
export function toBytes(payload: unknown): Uint8Array {
  if (payload instanceof Uint8Array) return payload;
  expectBlob(payload);
  return decodeBase64(payload as string);
}

function serialization(message: string): SerializationException {
  return new SerializationException(message);
}

function scalarName(v: number | boolean): string {
  if (typeof v === 'boolean') return v ? 'TRUE_VALUE' : 'FALSE_VALUE';
  return Number.isInteger(v) ? 'NUMBER_VALUE' : 'DECIMAL_VALUE';
}

export function expectString(v: unknown): void {
  if (typeof v === 'string') return;
  if (typeof v === 'number' || typeof v === 'boolean') throw serialization(`${scalarName(v)} cannot be converted to String`);
  if (Array.isArray(v)) throw serialization('Unrecognized collection type class java.lang.String');
  if (typeof v === 'object' && v !== null) throw serialization(START_OF_MAP);
  throw serialization(UNEXPECTED_VALUE);
}

export function expectBoolean(v: unknown): void {
  if (typeof v === 'boolean') return;
  if (typeof v === 'string') throw serialization('Unexpected token received from parser');
  if (typeof v === 'number') throw serialization(`${scalarName(v)} cannot be converted to Boolean`);
  if (Array.isArray(v)) throw serialization('Unrecognized collection type class java.lang.Boolean');
  if (typeof v === 'object' && v !== null) throw serialization(START_OF_MAP);
  throw serialization(UNEXPECTED_VALUE);
}

export function expectBlob(v: unknown): void {
  if (typeof v === 'string' || v instanceof Uint8Array) return;
  if (Array.isArray(v)) throw serialization('Unrecognized collection type class java.nio.ByteBuffer');
  if (typeof v === 'object' && v !== null) throw serialization(START_OF_MAP);
  throw serialization('only base-64-encoded strings are convertible to bytes');
}

export function expectList(v: unknown): void {
  if (Array.isArray(v)) return;
  if (typeof v === 'object' && v !== null && !(v instanceof Uint8Array)) throw serialization(START_OF_MAP);
  throw serialization(UNEXPECTED_FIELD);
}

export function expectMap(v: unknown): void {
  if (Array.isArray(v)) throw serialization(LIST_AS_MAP);
  if (typeof v === 'object' && v !== null && !(v instanceof Uint8Array)) return;
  throw serialization(UNEXPECTED_FIELD);
}

export function expectValueObject(v: unknown): void {
  if (Array.isArray(v)) throw serialization(LIST_AS_VALUE);
  if (typeof v === 'object' && v !== null) return;
  throw serialization(UNEXPECTED_VALUE);
}

export function expectSetElement(v: unknown, check: (v: unknown) => void): void {
  if (v === null || v === undefined) throw serialization(UNEXPECTED_VALUE);
  check(v);
}


export function scanMap(v: unknown, depth: number): void {
  expectMap(v);
  if (depth >= MAX_SCAN_DEPTH) return;
  const source = v as { [name: string]: unknown };
  for (const name in source) {
    const child = source[name];
    if (Object.hasOwn(source, name) && child !== undefined && child !== null) scanValue(child, depth + 1);
  }
}

export function scanValue(v: unknown, depth: number): void {
  if (v === null || v === undefined) return;
  expectValueObject(v);
  const source = v as { [key: string]: unknown };
  for (const key in source) {
    if (!isTypeKey(key) || !Object.hasOwn(source, key)) continue;
    const p = source[key];
    if (p === undefined || p === null) continue;
    switch (key) {
      case 'S':
      case 'N':
        expectString(p);
        break;
      case 'B':
        toBytes(p);
        break;
      case 'BOOL':
      case 'NULL':
        expectBoolean(p);
        break;
      case 'SS':
      case 'NS':
        expectList(p);
        for (const e of p as unknown[]) expectSetElement(e, expectString);
        break;
      case 'BS':
        expectList(p);
        for (const e of p as unknown[]) {
          expectSetElement(e, expectBlob);
          toBytes(e);
        }
        break;
      case 'L':
        expectList(p);
        if (depth < MAX_SCAN_DEPTH) for (const e of p as unknown[]) scanValue(e, depth + 1);
        break;
      case 'M':
        scanMap(p, depth);
        break;
    }
  }
}
