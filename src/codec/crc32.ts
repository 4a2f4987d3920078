/** CRC-32/IEEE as the sensor frame format uses it: a big-endian trailer over the CBOR map. */

export const CRC_BYTES = 4;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32/IEEE (zlib's crc32): crc32(b) === crc32(b.subarray(k), crc32(b.subarray(0, k))). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) c = (CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)) >>> 0;
  return (c ^ 0xffffffff) >>> 0;
}

export function crcMatches(bytes: Uint8Array): boolean {
  const n = bytes.length - CRC_BYTES;
  const want = ((bytes[n]! << 24) | (bytes[n + 1]! << 16) | (bytes[n + 2]! << 8) | bytes[n + 3]!) >>> 0;
  return crc32(bytes.subarray(0, n)) === want;
}
