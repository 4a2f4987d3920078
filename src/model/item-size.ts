/**
 * Item size exactly as DynamoDB counts it toward the 400 KB limit and capacity units
 * (../shared/spec/DYNAMODB.md §1.5):
 *
 *   item  = Σ ( utf8(name) + size(value) )
 *   S     = utf8 bytes            B  = raw bytes            N = numberSize (number.ts)
 *   BOOL  = NULL = 1              SS = Σ utf8 bytes         NS = Σ numberSize    BS = Σ raw bytes
 *   L     = 3 + Σ ( 1 + size(element) )
 *   M     = 3 + Σ ( utf8(key) + 1 + size(value) )
 *
 * Runs on every write: no allocation.
 */
import type { AttributeValue, Item } from './attribute-value.js';
import { numberSize } from './number.js';
import { utf8ByteLength } from './utf8.js';

/** Bytes a validated value counts toward its item's size. */
export function attributeValueSize(v: AttributeValue): number {
  if ('S' in v) return utf8ByteLength(v.S);
  if ('N' in v) return numberSize(v.N);
  if ('B' in v) return v.B.byteLength;
  if ('BOOL' in v || 'NULL' in v) return 1;
  if ('M' in v) {
    let size = 3;
    const m = v.M;
    for (const key in m) size += utf8ByteLength(key) + 1 + attributeValueSize(m[key] as AttributeValue);
    return size;
  }
  if ('L' in v) {
    let size = 3;
    const list = v.L;
    for (let i = 0; i < list.length; i++) size += 1 + attributeValueSize(list[i] as AttributeValue);
    return size;
  }
  let size = 0;
  if ('SS' in v) for (const s of v.SS) size += utf8ByteLength(s);
  else if ('NS' in v) for (const n of v.NS) size += numberSize(n);
  else for (const b of v.BS) size += b.byteLength;
  return size;
}

/** Bytes a validated item counts toward the 409,600-byte limit and capacity units. */
export function itemSize(item: Item): number {
  let size = 0;
  for (const name in item) size += utf8ByteLength(name) + attributeValueSize(item[name] as AttributeValue);
  return size;
}
