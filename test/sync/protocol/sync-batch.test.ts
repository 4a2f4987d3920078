import { describe, expect, it } from 'vitest';
import { encodeCbor, Embedded } from '../../../src/codec/cbor-envelope.js';
import { decodeSyncAck, decodeSyncBatch, encodeLegacyRejection, encodeSyncAck, encodeSyncBatch, SyncVersionError, type SyncAck, type SyncBatch } from '../../../src/sync/protocol/sync-batch.js';

const batch: SyncBatch = {
  deviceId: 'dev-1',
  incarnation: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
  table: 'Readings',
  tableId: '6f1c2a3b-0000-4000-8000-00000000abcd',
  shard: 3,
  parent: 1,
  records: [
    { seq: 7, bytes: Uint8Array.of(0x80) },
    { seq: 9, bytes: Uint8Array.of(0x81, 0x01) },
  ],
};

describe('sync batch format 2', () => {
  it('round-trips a batch with its incarnation and TableId, plain and deflated', () => {
    for (const compression of ['none', 'deflate'] as const) {
      const decoded = decodeSyncBatch(encodeSyncBatch(batch, compression));
      expect({ ...decoded, records: decoded.records.map((r) => ({ seq: r.seq, bytes: Uint8Array.from(r.bytes) })) }).toEqual(batch);
    }
  });

  it('round-trips every ack status with the hub clock', () => {
    for (const status of ['applied', 'retry', 'refused', 'conflict'] as const) {
      const ack: SyncAck = { incarnation: batch.incarnation, table: 'Readings', tableId: batch.tableId, shard: 3, seq: 9, status, message: status === 'refused' ? 'record 9: bad' : '', hubClock: { ms: 1_764_000_000_000, counter: 4 } };
      expect(decodeSyncAck(encodeSyncAck(ack))).toEqual(ack);
    }
  });

  it('refuses a version 1 batch with a SyncVersionError that names its table and shard, so the hub can answer the old device', () => {
    const v1 = encodeCbor([1, 'dev-1', 'Readings', 3, null, 0, encodeCbor([[1, new Embedded(Uint8Array.of(0x80))]])]);
    let error: unknown;
    try {
      decodeSyncBatch(v1);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SyncVersionError);
    expect((error as SyncVersionError).legacy).toEqual({ deviceId: 'dev-1', table: 'Readings', shard: 3 });
    expect((error as Error).message).toBe('sync batch format version 1 is not accepted: this hub needs version 2 (upgrade the device)');
    // What a version 1 device decodes: [1, table, shard, seq, status 1 = rejected, message].
    expect(encodeLegacyRejection('Readings', 3, 'upgrade')).toEqual(encodeCbor([1, 'Readings', 3, 0, 1, 'upgrade']));
  });

  it('refuses malformed acks and batches', () => {
    expect(() => decodeSyncAck(encodeCbor([1, 'Readings', 3, 9, 0, '']))).toThrow(/not a version 2 sync ack/);
    expect(() => decodeSyncAck(encodeCbor([2, 'i', 'Readings', 't', 3, 9, 7, '', [1, 0]]))).toThrow(/malformed sync ack/);
    expect(() => decodeSyncBatch(encodeCbor([2, 'dev-1', 'i', 'Readings', 't', 0, null, 0]))).toThrow(/malformed sync batch/);
    expect(() => decodeSyncBatch(encodeCbor([2, 'dev-1', 7, 'Readings', 't', 0, null, 0, encodeCbor([])]))).toThrow(/malformed sync batch header/);
  });
});
