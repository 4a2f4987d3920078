/**
 * Sync batches and acks on the wire, CBOR (codec/cbor-envelope.ts), format version 1, frozen;
 * docs/sync.md is the shared reference.
 *
 *   batch    = [ 1, deviceId: tstr, table: tstr, shard: uint, parent: uint / null,
 *                compression: uint, body: bstr ]
 *   compression = 0 ; body is `records` as CBOR
 *               / 1 ; body is `records` as CBOR, then raw DEFLATE (RFC 1951)
 *   records  = [ 1* [ seq: uint, #6.24(bstr .cbor record) ] ]   ; ascending seq
 *   record   = the change or gap record of docs/change-record.md, byte for byte as stored
 *
 *   ack      = [ 1, table: tstr, shard: uint, seq: uint, status: uint, message: tstr ]
 *   status   = 0 ; applied: every record of the shard up to seq is committed at the hub
 *            / 1 ; rejected: nothing was applied, `message` says why (the device keeps its cursor)
 *
 * The device id inside a batch must equal the one in its topic; hubs reject a batch otherwise.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CborError, Embedded, decodeCbor, encodeCbor, type CborValue } from '../codec/cbor-envelope.js';

export const SYNC_BATCH_VERSION = 1;

export type Compression = 'none' | 'deflate';

export type SyncBatch = {
  readonly deviceId: string;
  readonly table: string;
  readonly shard: number;
  readonly parent: number | undefined;
  readonly records: readonly { readonly seq: number; readonly bytes: Uint8Array }[];
};

export type SyncAck = {
  readonly table: string;
  readonly shard: number;
  readonly seq: number;
  readonly status: 'applied' | 'rejected';
  readonly message: string;
};

/** Largest inflated body a hub accepts (bounds a decompression bomb). */
export const MAX_BATCH_BODY_BYTES = 64 * 1024 * 1024;

export function encodeSyncBatch(batch: SyncBatch, compression: Compression = 'none'): Uint8Array {
  const body = encodeCbor(batch.records.map((r) => [r.seq, new Embedded(r.bytes)]));
  return encodeCbor([
    SYNC_BATCH_VERSION,
    batch.deviceId,
    batch.table,
    batch.shard,
    batch.parent ?? null,
    compression === 'deflate' ? 1 : 0,
    compression === 'deflate' ? deflateRawSync(body) : body,
  ]);
}

/** Throws CborError for anything outside the grammar. Record bytes are views of `payload`. */
export function decodeSyncBatch(payload: Uint8Array): SyncBatch {
  const v = decodeCbor(payload);
  if (!Array.isArray(v) || v.length !== 7 || v[0] !== SYNC_BATCH_VERSION) throw new CborError('not a version 1 sync batch');
  const [, deviceId, table, shard, parent, compression, body] = v as CborValue[];
  if (typeof deviceId !== 'string' || typeof table !== 'string' || typeof shard !== 'number') throw new CborError('malformed sync batch header');
  if (parent !== null && typeof parent !== 'number') throw new CborError('malformed sync batch parent');
  if (!(body instanceof Uint8Array) || (compression !== 0 && compression !== 1)) throw new CborError('malformed sync batch body');
  const raw = compression === 1 ? inflateRawSync(body, { maxOutputLength: MAX_BATCH_BODY_BYTES }) : body;
  const list = decodeCbor(raw);
  if (!Array.isArray(list) || list.length === 0) throw new CborError('a sync batch needs at least one record');
  let previous = 0;
  const records = (list as CborValue[]).map((entry) => {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'number' || !(entry[1] instanceof Embedded)) {
      throw new CborError('malformed sync batch record');
    }
    if (entry[0] <= previous) throw new CborError('sync batch records must have ascending sequence numbers');
    previous = entry[0];
    return { seq: entry[0], bytes: entry[1].bytes };
  });
  return { deviceId, table, shard, parent: parent ?? undefined, records };
}

export function encodeSyncAck(ack: SyncAck): Uint8Array {
  return encodeCbor([SYNC_BATCH_VERSION, ack.table, ack.shard, ack.seq, ack.status === 'applied' ? 0 : 1, ack.message]);
}

export function decodeSyncAck(payload: Uint8Array): SyncAck {
  const v = decodeCbor(payload);
  if (!Array.isArray(v) || v.length !== 6 || v[0] !== SYNC_BATCH_VERSION) throw new CborError('not a version 1 sync ack');
  const [, table, shard, seq, status, message] = v as CborValue[];
  if (typeof table !== 'string' || typeof shard !== 'number' || typeof seq !== 'number' || (status !== 0 && status !== 1) || typeof message !== 'string') {
    throw new CborError('malformed sync ack');
  }
  return { table, shard, seq, status: status === 0 ? 'applied' : 'rejected', message };
}
