/**
 * Keys of change-log shard entries: the sequence number as 8 bytes big-endian, so LMDB's byte
 * order is numeric order. Sequences start at 1 and stay below 2^53.
 */

export const SEQUENCE_KEY_BYTES = 8;

export function encodeSequenceKey(seq: number): Uint8Array {
  const key = new Uint8Array(SEQUENCE_KEY_BYTES);
  const view = new DataView(key.buffer);
  view.setUint32(0, Math.floor(seq / 0x1_0000_0000));
  view.setUint32(4, seq >>> 0);
  return key;
}

export function decodeSequenceKey(key: Uint8Array): number {
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  return view.getUint32(0) * 0x1_0000_0000 + view.getUint32(4);
}
