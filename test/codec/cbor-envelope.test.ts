import fc from 'fast-check';
import { Decoder, Encoder, Tag } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { CborError, Embedded, decodeCbor, encodeCbor, type CborValue } from '../../src/codec/cbor-envelope.js';
import { encodeItem } from '../../src/codec/item-value.js';
import { decodeStreamRecord, encodeChangeRecord } from '../../src/stream/change-record.js';
import { decodeSyncBatch, encodeSyncBatch } from '../../src/sync/protocol/sync-batch.js';

/** cbor-x as an independent implementation, configured as close to plain CBOR as it goes. */
const foreignDecoder = new Decoder({ useRecords: false, mapsAsObjects: false });
const foreignEncoder = new Encoder({ useRecords: false, tagUint8Array: false });

/** An envelope value as cbor-x sees it: uints past 2^32 as BigInt, tag 24 as a Tag. */
function toForeign(v: CborValue): unknown {
  if (typeof v === 'number') return v >= 2 ** 32 ? BigInt(v) : v;
  if (v instanceof Embedded) return new Tag(Uint8Array.from(v.bytes), 24);
  if (Array.isArray(v)) return (v as CborValue[]).map(toForeign);
  return v;
}

function fromForeign(v: unknown): CborValue {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Tag) return new Embedded(Uint8Array.from(v.value as Uint8Array));
  if (v instanceof Uint8Array) return Uint8Array.from(v);
  if (Array.isArray(v)) return v.map(fromForeign);
  return v as CborValue;
}

const leaf: fc.Arbitrary<CborValue> = fc.oneof(
  fc.constantFrom(0, 23, 24, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER),
  fc.nat(),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  fc.string(),
  fc.uint8Array({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }).map((b) => new Embedded(b)),
  fc.constantFrom(true, false, null),
);
const envelope = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 5 })),
})).value;

const plain = (v: CborValue): unknown => (v instanceof Embedded ? { embedded: [...v.bytes] } : v instanceof Uint8Array ? [...v] : Array.isArray(v) ? (v as CborValue[]).map(plain) : v);

describe('CBOR envelope', () => {
  it('round-trips every envelope value: unsigned integers up to 2^53 - 1, text, bytes, embedded CBOR, arrays', () => {
    fc.assert(
      fc.property(envelope, (v) => {
        expect(plain(decodeCbor(encodeCbor(v)))).toEqual(plain(v));
      }),
    );
  });

  it('is plain CBOR: cbor-x reads what it writes and writes what it reads, types intact', () => {
    fc.assert(
      fc.property(envelope, (v) => {
        expect(plain(fromForeign(foreignDecoder.decode(encodeCbor(v))))).toEqual(plain(v));
        expect(plain(decodeCbor(foreignEncoder.encode(toForeign(v))))).toEqual(plain(v));
      }),
    );
  });

  it('change records and sync batches carry items byte for byte: 38-digit decimals, binary, large numbers survive', () => {
    const item = { pk: { S: 'k' }, big: { N: '12345678901234567890123456789012345678' }, tiny: { N: '-0.000000000000000000000000000000000000015' }, bin: { B: Uint8Array.of(0, 255, 7) }, n: { N: '9007199254740993' } };
    const hlc = { ms: 1_764_000_000_000, counter: 2 ** 31 };
    const record = encodeChangeRecord({ eventName: 'MODIFY', keys: { pk: item.pk }, newImage: item, timeMs: hlc.ms, hlc, sizeBytes: 99, ttl: false });
    const batch = decodeSyncBatch(encodeSyncBatch({ deviceId: 'd', incarnation: 'i', table: 't', tableId: 'x', shard: 0, parent: undefined, records: [{ seq: Number.MAX_SAFE_INTEGER, bytes: record }] }));
    expect(batch.records[0]!.seq).toBe(Number.MAX_SAFE_INTEGER);
    const decoded = decodeStreamRecord(batch.records[0]!.bytes);
    expect(decoded).toMatchObject({ kind: 'change', hlc, newImage: item });
    // The embedded item is exactly the item codec's bytes, which cbor-x reads as a tag 24.
    const foreign = foreignDecoder.decode(record) as unknown[];
    expect(Uint8Array.from((foreign[3] as Tag).value as Uint8Array)).toEqual(encodeItem(item));
    expect(foreign[5]).toBe(BigInt(hlc.ms)); // a 64-bit unsigned integer (cbor-x reads every one as BigInt), not a float
  });

  it('refuses what the envelope grammar leaves out: floats, negative integers, maps, other tags, beyond 2^53, trailing bytes, deep nesting', () => {
    const cases: [string, number[]][] = [
      ['float', [0xf9, 0x3c, 0x00]],
      ['negative', [0x20]],
      ['map', [0xa0]],
      ['tag 4 (decimal fraction)', [0xc4, 0x82, 0x20, 0x03]],
      ['beyond 2^53', [0x1b, 0x00, 0x20, 0, 0, 0, 0, 0, 0]],
      ['trailing', [0x01, 0x02]],
      ['array longer than its input', [0x9a, 0xff, 0xff, 0xff, 0xff, 0x00]],
      ['deep', [...new Array<number>(17).fill(0x81), 0x00]],
    ];
    for (const [, bytes] of cases) expect(() => decodeCbor(Uint8Array.from(bytes))).toThrow(CborError);
  });
});
