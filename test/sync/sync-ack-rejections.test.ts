/**
 * The ack's optional rejections (src/sync/protocol/sync-batch.ts): present only when the hub refused
 * writes under a version rule, so an ack without them is the 9-element ack older devices read.
 */
import { describe, expect, it } from 'vitest';
import { decodeCbor, encodeCbor } from '../../src/codec/cbor-envelope.js';
import { decodeSyncAck, encodeSyncAck, type SyncAck } from '../../src/sync/protocol/sync-batch.js';

const base: SyncAck = { incarnation: 'inc', table: 'WorkOrders', tableId: 'tid', shard: 3, seq: 9, status: 'applied', message: '', hubClock: { ms: 1_800_000_000_000, counter: 2 } };

describe('sync ack rejections', () => {
  it('round-trip: the refused item, the hub item (or none) and the reason of each', () => {
    const rejections = [
      { seq: 7, keys: { id: { S: 'j' } }, item: { id: { S: 'j' }, version: { N: '2' }, b: { B: new Uint8Array([1, 2]) } }, hubItem: { id: { S: 'j' }, version: { N: '2' } }, reason: "version 2 is not the hub's version 2 + 1" },
      { seq: 9, keys: { id: { S: 'k' } }, reason: 'a delete carries no base version' },
    ];
    expect(decodeSyncAck(encodeSyncAck({ ...base, rejections }))).toEqual({ ...base, rejections });
  });

  it("the hub item's version record travels with a rejection when the hub keeps one; an entry without it (5 elements) still decodes", () => {
    const hubVersion = { hlc: { ms: 1_800_000_000_123, counter: 4 }, device: 'van-a', incarnation: 'inc-a' };
    const rejections = [
      { seq: 7, keys: { id: { S: 'j' } }, item: { id: { S: 'j' }, version: { N: '2' } }, hubItem: { id: { S: 'j' }, version: { N: '2' } }, reason: 'stale', hubVersion },
      { seq: 8, keys: { id: { S: 'k' } }, reason: 'stale' },
    ];
    const encoded = encodeSyncAck({ ...base, rejections });
    expect(decodeSyncAck(encoded)).toEqual({ ...base, rejections });
    const entries = (decodeCbor(encoded) as unknown[][])[9] as unknown[][];
    expect(entries.map((e) => e.length)).toEqual([6, 5]);
    const fields = decodeCbor(encodeSyncAck(base)) as unknown[];
    expect(() => decodeSyncAck(encodeCbor([...fields, [[1, entries[0]![1], null, null, 'r', [1, 2, 'd']]]] as never))).toThrow(/rejection version/);
  });

  it('without rejections the ack stays the 9-element version 2 ack', () => {
    expect((decodeCbor(encodeSyncAck(base)) as unknown[]).length).toBe(9);
    expect((decodeCbor(encodeSyncAck({ ...base, rejections: [] })) as unknown[]).length).toBe(9);
    expect(decodeSyncAck(encodeSyncAck(base))).toEqual(base);
  });

  it('refuses malformed rejections', () => {
    const fields = decodeCbor(encodeSyncAck(base)) as unknown[];
    expect(() => decodeSyncAck(encodeCbor([...fields, []] as never))).toThrow(/rejections/);
    expect(() => decodeSyncAck(encodeCbor([...fields, [[1, 'not an item', null, null, 'r']]] as never))).toThrow(/rejection item/);
    expect(() => decodeSyncAck(encodeCbor([...fields, [[1, null, null, 'r']]] as never))).toThrow(/rejection/);
  });
});
