/**
 * Generated hostile sync messages for the hub (hostile-sync.test.ts): each is a topic, a payload
 * and what the hub must do with it. `reject` inputs are outside the batch grammar of
 * docs/sync.md or break its rules (wrong device on the topic, bad keys, items over 400 KB, a
 * decompression bomb); `any` inputs (mutated bytes of valid batches, valid batches) may still
 * be valid and be applied, but only into the hostile device's own table.
 */
import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import type { Item } from '../../../src/model/attribute-value.js';
import { encodeChangeRecord, encodeGapRecord } from '../../../src/stream/change-record.js';
import { Embedded, encodeCbor, type CborValue } from '../../../src/codec/cbor-envelope.js';
import { encodeSyncBatch, MAX_BATCH_BODY_BYTES } from '../../../src/sync/protocol/sync-batch.js';

export type HostileMessage = { readonly kind: string; readonly topic: string; readonly payload: Uint8Array; readonly expect: 'reject' | 'any' };

export const HOSTILE_DEVICE = 'evil';
export const TABLE = 'Readings';

const topicOf = (device: string, shard = 0) => `edgetable/v1/${device}/${TABLE}/${shard}`;

const readingItem = fc.record({
  sensor: fc.string({ minLength: 1, maxLength: 12 }).map((S) => ({ S })),
  ts: fc.integer({ min: -1_000_000, max: 1_000_000 }).map((n) => ({ N: String(n) })),
  v: fc.oneof(fc.integer().map((n) => ({ N: String(n) })), fc.string({ maxLength: 30 }).map((S) => ({ S })), fc.boolean().map((BOOL) => ({ BOOL }))),
}) as fc.Arbitrary<Item>;

const keysOf = (item: Item): Item => ({ sensor: item.sensor!, ts: item.ts! });

const changeRecord = fc.tuple(readingItem, fc.constantFrom<'INSERT' | 'MODIFY' | 'REMOVE'>('INSERT', 'MODIFY', 'REMOVE'), fc.nat({ max: 2 ** 40 }), fc.nat({ max: 1000 })).map(([item, eventName, ms, counter]) =>
  encodeChangeRecord({ eventName, keys: keysOf(item), ...(eventName === 'REMOVE' ? {} : { newImage: item }), timeMs: ms, hlc: { ms, counter }, sizeBytes: 30, ttl: false }),
);

const recordList = fc.array(changeRecord, { minLength: 1, maxLength: 8 });

let nextSeq = 1;
/** A valid batch of the hostile device (its own topic and table): ascending, fresh sequence numbers. */
const validBatch = fc.tuple(recordList, fc.boolean()).map(([records, deflate]) => {
  const seqs = records.map(() => nextSeq++);
  return encodeSyncBatch({ deviceId: HOSTILE_DEVICE, incarnation: 'forged-incarnation', table: TABLE, tableId: 'forged-table-id', shard: 0, parent: undefined, records: records.map((bytes, i) => ({ seq: seqs[i]!, bytes })) }, deflate ? 'deflate' : 'none');
});

type Mutation = { kind: 'flip' | 'truncate' | 'insert' | 'splice'; at: number; bytes: Uint8Array };
const mutation = fc.record({
  kind: fc.constantFrom<Mutation['kind']>('flip', 'truncate', 'insert', 'splice'),
  at: fc.nat(),
  bytes: fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 8 }),
    // CBOR heads that claim huge lengths, break types or open deep structures
    fc.constantFrom(Uint8Array.of(0xff), Uint8Array.of(0x9f), Uint8Array.of(0xbf), Uint8Array.of(0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), Uint8Array.of(0x5b, 0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), Uint8Array.of(0x7a, 0xff, 0xff, 0xff, 0xff), Uint8Array.of(0xc6), Uint8Array.of(0xfb, 0, 0, 0, 0, 0, 0, 0, 0), Uint8Array.of(0x38, 0xff)),
  ),
});

function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const at = bytes.length === 0 ? 0 : m.at % bytes.length;
  if (m.kind === 'flip') {
    const out = Uint8Array.from(bytes);
    out[at] = out[at]! ^ (m.bytes[0] || 1);
    return out;
  }
  if (m.kind === 'truncate') return bytes.subarray(0, at);
  if (m.kind === 'insert') return Uint8Array.from([...bytes.subarray(0, at), ...m.bytes, ...bytes.subarray(at)]);
  return Uint8Array.from([...bytes.subarray(0, at), ...m.bytes, ...bytes.subarray(at + m.bytes.length)]);
}

/** Arbitrary envelope-level CBOR values (what cbor-lite can write), for wrong types in every slot. */
const cborValue: fc.Arbitrary<CborValue> = fc.letrec<{ v: CborValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.nat(),
    fc.constantFrom(2 ** 53 - 1, 2 ** 32, 0),
    fc.string({ maxLength: 20 }),
    fc.uint8Array({ maxLength: 20 }),
    fc.constantFrom(true, false, null),
    fc.uint8Array({ maxLength: 20 }).map((b) => new Embedded(b)),
    fc.array(tie('v'), { maxLength: 6 }),
  ),
})).v;

/** A batch array with one or more slots replaced by values of the wrong type. */
const wrongTypes = fc.tuple(cborValue, cborValue, cborValue, fc.nat({ max: 6 }), fc.boolean()).map(([a, b, c, slot, extra]) => {
  const good: CborValue[] = [1, HOSTILE_DEVICE, TABLE, 0, null, 0, encodeCbor([[1, new Embedded(Uint8Array.of(0x80))]])];
  good[slot] = a;
  if (slot !== 6) good[(slot + 3) % 7] = b;
  if (extra) good.push(c);
  return encodeCbor(good);
});

/** Valid envelope, records whose content breaks the rules. */
const badRecords = fc.oneof(
  // key of the wrong type
  readingItem.map((item) => [{ ...item, sensor: { N: '1' } }, 'INSERT'] as const),
  // missing sort key
  readingItem.map((item) => [{ sensor: item.sensor!, v: item.v! }, 'MODIFY'] as const),
  // item over 400 KB
  fc.integer({ min: 400 * 1024, max: 600 * 1024 }).map((n) => [{ sensor: { S: 'big' }, ts: { N: '1' }, pad: { S: 'x'.repeat(n) } }, 'INSERT'] as const),
).map(([item, eventName]) => {
  const record = encodeChangeRecord({ eventName, keys: item, newImage: item, timeMs: 1, hlc: { ms: 1, counter: 0 }, sizeBytes: 1, ttl: false });
  return encodeSyncBatch({ deviceId: HOSTILE_DEVICE, incarnation: 'forged-incarnation', table: TABLE, tableId: 'forged-table-id', shard: 0, parent: undefined, records: [{ seq: nextSeq++, bytes: record }] });
});

/** Envelope-level lies: records out of order, an INSERT without its image, garbage item bytes, empty record lists. */
const brokenEnvelope = fc.oneof(
  fc.constant(encodeCbor([2, HOSTILE_DEVICE, 'forged-incarnation', TABLE, 'forged-table-id', 0, null, 0, encodeCbor([])])),
  fc.tuple(changeRecord, changeRecord).map(([a, b]) => encodeCbor([2, HOSTILE_DEVICE, 'forged-incarnation', TABLE, 'forged-table-id', 0, null, 0, encodeCbor([[9, new Embedded(a)], [3, new Embedded(b)]])])),
  // an INSERT without its new image
  readingItem.map((item) => encodeSyncBatch({ deviceId: HOSTILE_DEVICE, incarnation: 'forged-incarnation', table: TABLE, tableId: 'forged-table-id', shard: 0, parent: undefined, records: [{ seq: nextSeq++, bytes: encodeChangeRecord({ eventName: 'INSERT', keys: keysOf(item), timeMs: 1, hlc: { ms: 1, counter: 0 }, sizeBytes: 1, ttl: false }) }] })),
  fc.uint8Array({ maxLength: 64 }).map((junk) => encodeSyncBatch({ deviceId: HOSTILE_DEVICE, incarnation: 'forged-incarnation', table: TABLE, tableId: 'forged-table-id', shard: 0, parent: undefined, records: [{ seq: nextSeq++, bytes: encodeCbor([1, 1, new Embedded(junk), new Embedded(junk), null, 1, [1, 0], 1, 0]) }] })),
  fc.constant(encodeCbor([2, HOSTILE_DEVICE, 'forged-incarnation', TABLE, 'forged-table-id', 0, null, 7, encodeCbor([[1, new Embedded(Uint8Array.of(0x80))]])])),
  fc.uint8Array({ maxLength: 200 }).map((b) => encodeCbor([2, HOSTILE_DEVICE, 'forged-incarnation', TABLE, 'forged-table-id', 0, null, 1, b])),
);

/** CBOR heads claiming counts far beyond the input, and deep nesting. */
const hugeOrDeep = fc.oneof(
  fc.constantFrom(0x9b, 0x5b, 0x7b, 0x9a, 0x5a, 0x7a).chain((head) =>
    fc.uint8Array({ maxLength: 32 }).map((tail) => {
      const n = head & 0x1f;
      const len = n === 27 ? [0x00, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff] : [0xff, 0xff, 0xff, 0xff];
      return Uint8Array.from([0x89, 0x02, head, ...len, ...tail]);
    }),
  ),
  fc.integer({ min: 17, max: 100_000 }).map((depth) => Uint8Array.from([...new Array<number>(depth).fill(0x81), 0x00])),
  fc.integer({ min: 17, max: 50_000 }).map((depth) => encodeCbor([2, HOSTILE_DEVICE, 'forged-incarnation', TABLE, 'forged-table-id', 0, null, 0, Uint8Array.from([...new Array<number>(depth).fill(0x81), 0x01])])),
);

/** Strings of 64 KB to 2 MB in the header, or records of that many junk bytes. */
const oversized = fc.tuple(fc.integer({ min: 64 * 1024, max: 2 * 1024 * 1024 }), fc.constantFrom('device', 'table', 'record')).map(([n, where]) => {
  const s = 'A'.repeat(n);
  if (where === 'device') return encodeCbor([2, s, 'forged-incarnation', TABLE, 'forged-table-id', 0, null, 0, encodeCbor([[1, new Embedded(Uint8Array.of(0x80))]])]);
  if (where === 'table') return encodeCbor([2, HOSTILE_DEVICE, 'forged-incarnation', s, 'forged-table-id', 0, null, 0, encodeCbor([[1, new Embedded(Uint8Array.of(0x80))]])]);
  return encodeCbor([2, HOSTILE_DEVICE, 'forged-incarnation', TABLE, 'forged-table-id', 0, null, 0, encodeCbor([[nextSeq++, new Embedded(new Uint8Array(n).fill(0x61))]])]);
});

let bomb: Uint8Array | undefined;
/** A deflated body that inflates past MAX_BATCH_BODY_BYTES (made once: ~65 KB on the wire). */
function decompressionBomb(): Uint8Array {
  bomb ??= encodeCbor([2, HOSTILE_DEVICE, 'forged-incarnation', TABLE, 'forged-table-id', 0, null, 1, deflateRawSync(new Uint8Array(MAX_BATCH_BODY_BYTES + 1024))]);
  return bomb;
}

const gapRecords = fc.tuple(fc.nat(), fc.nat(), fc.nat()).map(([a, b, n]) =>
  encodeSyncBatch({ deviceId: HOSTILE_DEVICE, incarnation: 'forged-incarnation', table: TABLE, tableId: 'forged-table-id', shard: 0, parent: undefined, records: [{ seq: nextSeq++, bytes: encodeGapRecord({ firstSeq: a, lastSeq: b, records: n, bytes: n, timeMs: 1, hlc: { ms: 1, counter: 0 } }) }] }),
);

const own = (kind: string, expect: 'reject' | 'any') => (payload: Uint8Array): HostileMessage => ({ kind, topic: topicOf(HOSTILE_DEVICE), payload, expect });

/**
 * Every message targets the hostile device's topics; `victim` is a real device whose topic only
 * ever gets batches that name another device (so they must all be rejected).
 */
export function hostileMessages(victim: string): fc.Arbitrary<HostileMessage> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 2000 }).map(own('random bytes', 'reject')) },
    { weight: 3, arbitrary: wrongTypes.map(own('wrong types', 'reject')) },
    { weight: 2, arbitrary: hugeOrDeep.map(own('huge counts / deep nesting', 'reject')) },
    { weight: 1, arbitrary: oversized.map(own('oversized strings', 'reject')) },
    { weight: 2, arbitrary: badRecords.map(own('records breaking key or size rules', 'reject')) },
    { weight: 2, arbitrary: brokenEnvelope.map(own('broken envelope', 'reject')) },
    { weight: 2, arbitrary: validBatch.map((payload) => ({ kind: 'wrong device on the topic', topic: topicOf(victim), payload, expect: 'reject' as const })) },
    { weight: 6, arbitrary: fc.tuple(validBatch, mutation).map(([b, m]) => own('mutated valid batch', 'any')(mutate(b, m))) },
    { weight: 1, arbitrary: fc.constant(0).map(() => own('decompression bomb', 'reject')(decompressionBomb())) },
    { weight: 1, arbitrary: gapRecords.map(own('gap records', 'any')) },
    { weight: 1, arbitrary: validBatch.map(own('valid batch', 'any')) },
  );
}
