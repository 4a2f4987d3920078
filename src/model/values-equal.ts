/**
 * Deep equality of validated values as conditions use it for `=`, `<>`, IN and `contains` on
 * lists (../shared/spec/DYNAMODB.md §7.3): same type required; N numeric (canonical strings are
 * unique per value, so string equality is numeric equality); B bytewise; sets unordered; L in
 * order; M by key set and values.
 */
import type { AttributeValue } from './attribute-value.js';

/** Sets at most this large are compared pairwise; larger ones through a hash set or sorting. */
const SMALL_SET = 16;

export function valuesEqual(a: AttributeValue, b: AttributeValue): boolean {
  if (a === b) return true;
  if ('S' in a) return 'S' in b && a.S === b.S;
  if ('N' in a) return 'N' in b && a.N === b.N;
  if ('B' in a) return 'B' in b && bytesEqual(a.B, b.B);
  if ('BOOL' in a) return 'BOOL' in b && a.BOOL === b.BOOL;
  if ('NULL' in a) return 'NULL' in b;
  if ('SS' in a) return 'SS' in b && stringSetsEqual(a.SS, b.SS);
  if ('NS' in a) return 'NS' in b && stringSetsEqual(a.NS, b.NS);
  if ('BS' in a) return 'BS' in b && binarySetsEqual(a.BS, b.BS);
  if ('L' in a) {
    if (!('L' in b) || a.L.length !== b.L.length) return false;
    for (let i = 0; i < a.L.length; i++) {
      if (!valuesEqual(a.L[i] as AttributeValue, b.L[i] as AttributeValue)) return false;
    }
    return true;
  }
  if (!('M' in b)) return false;
  const am = a.M;
  const bm = b.M;
  let count = 0;
  for (const key in am) {
    const other = Object.hasOwn(bm, key) ? bm[key] : undefined;
    if (other === undefined || !valuesEqual(am[key] as AttributeValue, other)) return false;
    count++;
  }
  for (const _ in bm) count--;
  return count === 0;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Sets hold no duplicates, so equal size plus containment is equality. */
function stringSetsEqual(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  if (a.length <= SMALL_SET) {
    for (const s of a) if (!b.includes(s)) return false;
    return true;
  }
  const set = new Set(b);
  for (const s of a) if (!set.has(s)) return false;
  return true;
}

function binarySetsEqual(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  if (a.length <= SMALL_SET) {
    outer: for (const x of a) {
      for (const y of b) if (bytesEqual(x, y)) continue outer;
      return false;
    }
    return true;
  }
  const set = new Set<string>();
  for (const y of b) set.add(Buffer.from(y.buffer, y.byteOffset, y.byteLength).toString('latin1'));
  for (const x of a) if (!set.has(Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('latin1'))) return false;
  return true;
}
