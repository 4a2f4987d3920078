import { describe, expect, it } from 'vitest';
import { CborError } from '../../../src/codec/cbor-envelope.js';
import { decodeDownAck, decodeDownMessage, decodeSubscription, encodeDownAck, encodeDownMessage, encodeSubscription, toWirePartitionKey } from '../../../src/sync/protocol/down-messages.js';
import { decodeStreamRecord, encodeChangeRecord, recordOrigin } from '../../../src/stream/change-record.js';

const version = { hlc: { ms: 1_764_000_000_000, counter: 3 }, device: 'tablet-7', incarnation: 'inc-1' };

describe('down wire formats', () => {
  it('a subscription round-trips with typed partition keys', () => {
    const s = {
      incarnation: 'inc-1',
      tables: [
        { table: 'WorkOrders', direction: 'both' as const, partitionKeys: ['site-7', 42, Uint8Array.from([1, 2])].map(toWirePartitionKey), tableId: 'tid' },
        { table: 'Catalog', direction: 'down' as const },
      ],
    };
    expect(decodeSubscription(encodeSubscription(s))).toEqual({
      incarnation: 'inc-1',
      tables: [
        { table: 'WorkOrders', direction: 'both', partitionKeys: [{ type: 'S', value: 'site-7' }, { type: 'N', value: '42' }, { type: 'B', value: Uint8Array.from([1, 2]) }], tableId: 'tid' },
        { table: 'Catalog', direction: 'down' },
      ],
    });
  });

  it('changes, base pages, base done, schema and refusals round-trip; a put without its image is refused', () => {
    const keys = { site: { S: 'site-7' }, job: { S: 'j1' } };
    const changes = { kind: 'changes' as const, table: 'WorkOrders', id: 'r.1', baseId: 'b1', entries: [{ remove: false, keys, image: { ...keys, state: { S: 'a' } }, version }, { remove: true, keys, version }] };
    expect(decodeDownMessage(encodeDownMessage(changes))).toEqual(changes);
    for (const m of [
      { kind: 'base-done' as const, table: 'T', id: 'r.2', baseId: 'b1' },
      { kind: 'schema' as const, table: 'T', id: 'r.3', schema: '{"phase":"base"}' },
      { kind: 'refused' as const, table: 'T', id: 'r.4', message: 'not allowed' },
    ]) expect(decodeDownMessage(encodeDownMessage(m))).toEqual(m);
    const broken = encodeDownMessage({ kind: 'changes', table: 'T', id: 'r.5', entries: [{ remove: false, keys, version }] });
    expect(() => decodeDownMessage(broken)).toThrow(CborError);
    const ack = { incarnation: 'inc-1', table: 'T', id: 'r.1', status: 'conflict' as const, message: 'key schema differs' };
    expect(decodeDownAck(encodeDownAck(ack))).toEqual(ack);
  });

  it('a change record keeps the origin of a received write; a local write has none', () => {
    const base = { eventName: 'INSERT' as const, keys: { k: { S: 'a' } }, newImage: { k: { S: 'a' } }, timeMs: 1, hlc: { ms: 5, counter: 0 }, sizeBytes: 2, ttl: false };
    const received = encodeChangeRecord({ ...base, origin: version });
    expect(decodeStreamRecord(received)).toMatchObject({ origin: version });
    expect(recordOrigin(received)).toEqual(version);
    expect(recordOrigin(encodeChangeRecord(base))).toBeUndefined();
    expect(decodeStreamRecord(encodeChangeRecord(base))).not.toHaveProperty('origin');
  });
});
