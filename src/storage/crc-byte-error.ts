/**
 * Locating a one-byte error in a message protected by zlib's CRC-32 (reflected, polynomial
 * 0xEDB88320): how the redo log tells a record damaged on the medium (one byte, or one bit,
 * changed) from a record torn by a power cut (whole pieces of it old or zeros), which no single
 * byte could make whole again (redo-log-file.ts, scanLog).
 *
 * The CRC is linear: for two messages of one length and one initial value, crc(a) ^ crc(b) is the
 * CRC, from a zero register, of a ^ b. An error of value v at byte j of an n-byte message thus
 * leaves the syndrome T[v] carried through n - 1 - j zero bytes (each: c = T[c & 0xff] ^ c >>> 8).
 * That step is invertible (the top bytes of T's entries are all different), so the syndrome is
 * carried back one byte at a time until it is some T[v]: O(n), no search over values.
 */
const POLYNOMIAL = 0xedb88320;
const TABLE = new Uint32Array(256);
/** The index of the table entry whose top byte is the index into this. */
const BY_TOP_BYTE = new Uint8Array(256);
/** T[v] -> v for v 1-255: the syndrome of an error in the message's last byte. */
const LAST_BYTE_ERRORS = new Map<number, number>();
for (let i = 0; i < 256; i++) {
  let c = i;
  for (let bit = 0; bit < 8; bit++) c = c & 1 ? (c >>> 1) ^ POLYNOMIAL : c >>> 1;
  TABLE[i] = c >>> 0;
  BY_TOP_BYTE[c >>> 24] = i;
  if (i > 0) LAST_BYTE_ERRORS.set(c >>> 0, i);
}

/** The register before one zero byte was processed, given the register after it. */
function back(after: number): number {
  const low = BY_TOP_BYTE[after >>> 24]!;
  return (((after ^ TABLE[low]!) << 8) | low) >>> 0;
}

/**
 * `syndrome` = the CRC computed over a received message of `length` bytes XOR the CRC sent with
 * it: where one byte of the message differs from what was sent, and by what XOR; undefined when
 * no single byte explains it (the syndrome 0 means no error).
 */
export function locateByteError(syndrome: number, length: number): { readonly offset: number; readonly xor: number } | undefined {
  let s = syndrome >>> 0;
  if (s === 0) return undefined;
  for (let k = 0; k < length; k++) {
    const xor = LAST_BYTE_ERRORS.get(s);
    if (xor !== undefined) return { offset: length - 1 - k, xor };
    s = back(s);
  }
  return undefined;
}

/** Whether a syndrome is an error in one byte of the CRC itself (the message intact). */
export function isChecksumByteError(syndrome: number): boolean {
  const s = syndrome >>> 0;
  return s !== 0 && [0xff, 0xff00, 0xff0000, 0xff000000].some((mask) => (s & ~mask) >>> 0 === 0);
}
