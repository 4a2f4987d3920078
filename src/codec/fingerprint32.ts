/**
 * FarmHash Fingerprint32 (google/farmhash `farmhashmk::Hash32`) in plain TypeScript: the fallback
 * of partition-hash.ts where the native farmhash module does not load (farmhash 5.0.1 ships
 * binaries for x64 and arm64 only; 32-bit Raspberry Pi OS is linux-arm). Bit-identical to the
 * native function for every input: test/codec/fingerprint32.test.ts compares both on the
 * published vectors and on random inputs of 0 to 2,000+ bytes.
 *
 * All arithmetic is unsigned 32-bit: Math.imul for products, `>>> 0` where a sum must wrap.
 * Fetch is a little-endian 32-bit load; Rotate is a rotate RIGHT, as in farmhash.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function fetch32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

function rotr(v: number, shift: number): number {
  return shift === 0 ? v >>> 0 : ((v >>> shift) | (v << (32 - shift))) >>> 0;
}

/** MurmurHash3's finalizer. */
function fmix(h: number): number {
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h = (h ^ (h >>> 13)) >>> 0;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

function mur(a: number, h: number): number {
  a = Math.imul(a, C1);
  a = rotr(a, 17);
  a = Math.imul(a, C2);
  h = (h ^ a) >>> 0;
  h = rotr(h, 19);
  return (Math.imul(h, 5) + 0xe6546b64) >>> 0;
}

function hashLen0to4(s: Uint8Array, len: number): number {
  let b = 0;
  let c = 9;
  for (let i = 0; i < len; i++) {
    const v = (s[i]! << 24) >> 24; // farmhash reads `signed char`
    b = (Math.imul(b, C1) + v) >>> 0;
    c = (c ^ b) >>> 0;
  }
  return fmix(mur(b, mur(len, c)));
}

function hashLen5to12(s: Uint8Array, len: number): number {
  let a = len;
  let b = (len * 5) >>> 0;
  let c = 9;
  const d = b;
  a = (a + fetch32(s, 0)) >>> 0;
  b = (b + fetch32(s, len - 4)) >>> 0;
  c = (c + fetch32(s, (len >>> 1) & 4)) >>> 0;
  return fmix(mur(c, mur(b, mur(a, d))));
}

function hashLen13to24(s: Uint8Array, len: number): number {
  let a = fetch32(s, (len >>> 1) - 4);
  const b = fetch32(s, 4);
  const c = fetch32(s, len - 8);
  const d = fetch32(s, len >>> 1);
  const e = fetch32(s, 0);
  const f = fetch32(s, len - 4);
  let h = (Math.imul(d, C1) + len) >>> 0;
  a = (rotr(a, 12) + f) >>> 0;
  h = (mur(c, h) + a) >>> 0;
  a = (rotr(a, 3) + c) >>> 0;
  h = (mur(e, h) + a) >>> 0;
  a = (rotr((a + f) >>> 0, 12) + d) >>> 0;
  h = (mur(b, h) + a) >>> 0;
  return fmix(h);
}

/** rotr(x * C1, 17) * C2: the per-word mix of the long-input path. */
function mix(x: number): number {
  return Math.imul(rotr(Math.imul(x, C1), 17), C2) >>> 0;
}

/** h = rotr(h, 19) * 5 + 0xe6546b64, the running step of the long-input path. */
function step(h: number): number {
  return (Math.imul(rotr(h, 19), 5) + 0xe6546b64) >>> 0;
}

/** FarmHash Fingerprint32 of `s`, an unsigned 32-bit integer. */
export function fingerprint32(s: Uint8Array): number {
  const len = s.length;
  if (len <= 24) return len <= 12 ? (len <= 4 ? hashLen0to4(s, len) : hashLen5to12(s, len)) : hashLen13to24(s, len);

  let h = len >>> 0;
  let g = Math.imul(C1, len) >>> 0;
  let f = g;
  const a0 = mix(fetch32(s, len - 4));
  const a1 = mix(fetch32(s, len - 8));
  const a2 = mix(fetch32(s, len - 16));
  const a3 = mix(fetch32(s, len - 12));
  const a4 = mix(fetch32(s, len - 20));
  h = step((h ^ a0) >>> 0);
  h = step((h ^ a2) >>> 0);
  g = step((g ^ a1) >>> 0);
  g = step((g ^ a3) >>> 0);
  f = (f + a4) >>> 0;
  f = (rotr(f, 19) + 113) >>> 0;
  let iters = Math.floor((len - 1) / 20);
  let p = 0;
  do {
    const a = fetch32(s, p);
    const b = fetch32(s, p + 4);
    const c = fetch32(s, p + 8);
    const d = fetch32(s, p + 12);
    const e = fetch32(s, p + 16);
    h = (h + a) >>> 0;
    g = (g + b) >>> 0;
    f = (f + c) >>> 0;
    h = (mur(d, h) + e) >>> 0;
    g = (mur(c, g) + a) >>> 0;
    f = (mur((b + Math.imul(e, C1)) >>> 0, f) + d) >>> 0;
    f = (f + g) >>> 0;
    g = (g + f) >>> 0;
    p += 20;
  } while (--iters !== 0);
  g = Math.imul(rotr(g, 11), C1) >>> 0;
  g = Math.imul(rotr(g, 17), C1) >>> 0;
  f = Math.imul(rotr(f, 11), C1) >>> 0;
  f = Math.imul(rotr(f, 17), C1) >>> 0;
  h = step((h + g) >>> 0);
  h = Math.imul(rotr(h, 17), C1) >>> 0;
  h = step((h + f) >>> 0);
  h = Math.imul(rotr(h, 17), C1) >>> 0;
  return h;
}
