/**
 * Sync batches and acks on the wire, CBOR (codec/cbor-envelope.ts), format version 2, frozen;
 * docs/sync-protocol.md is the shared reference.
 *
 *   batch    = [ 2, deviceId: tstr, incarnation: tstr, table: tstr, tableId: tstr, shard: uint,
 *                parent: uint / null, compression: uint, body: bstr ]
 *   incarnation = the sending store's id (stream/store-identity.ts)
 *   tableId  = the device table's TableId (a UUID, new for a re-created table)
 *   compression = 0 ; body is `records` as CBOR
 *               / 1 ; body is `records` as CBOR, then raw DEFLATE (RFC 1951)
 *   records  = [ 1* [ seq: uint, #6.24(bstr .cbor record) ] ]   ; ascending seq
 *   record   = the change or gap record of docs/change-record.md, byte for byte as stored
 *
 *   ack      = [ 2, incarnation: tstr, table: tstr, tableId: tstr, shard: uint, seq: uint,
 *                status: uint, message: tstr, hubClock: [ ms: uint, counter: uint ]
 *                ? rejections ]
 *   status   = 0 ; applied: every record of the stream up to seq is committed at the hub
 *            / 1 ; retry: nothing was applied (e.g. schema not announced yet); the device keeps
 *                ;   its cursor and sends again after its ack timeout
 *            / 2 ; refused: the hub cannot apply the records up to seq (validation, schema
 *                ;   mismatch); it keeps them in its dead-letter table and the device moves its
 *                ;   cursor past seq, counting them as refused
 *            / 3 ; conflict: the device's table definition conflicts with the hub's table of
 *                ;   that name (key schema or indexes); nothing applied, message names the
 *                ;   difference, seq is 0; the device stops sending the table and retries later
 *   hubClock = the hub's hybrid logical clock after the batch; devices merge it (stream/hlc.ts)
 *   rejections = [ 1* [ seq: uint, keys: #6.24(bstr .cbor item), item: #6.24(bstr .cbor item) / null,
 *                       hubItem: #6.24(bstr .cbor item) / null, reason: tstr
 *                       ? hubVersion: [ ms: uint, counter: uint, device: tstr, incarnation: tstr ] ] ]
 *              ; writes up to seq the hub refused under the table's version rule
 *              ; (replication/conflict-rule.ts), for the device's write grants (reason
 *              ; "unauthorized: ...", hubItem and hubVersion always absent) or for a clock more
 *              ; than maxClockDriftMs ahead (reason "clock ahead: ..."): not applied, yet
 *              ; acknowledged (the cursor moves past them); item = what the device wrote (null: a
 *              ; delete), hubItem = the hub's item (null: none); item grammar of
 *              ; codec/item-value.ts. Present only when non-empty, so a hub that refuses nothing
 *              ; one by one sends the 9-element ack older devices read.
 *              ; hubVersion = the version record of the hub's item (or tombstone), absent when
 *              ; the hub has none: a device that receives the table down takes it with the
 *              ; hub's item, so last-writer-wins there compares later down records with the
 *              ; hub's version, not the refused write's (restore-rejected.ts).
 *
 * A stream is (deviceId, incarnation, tableId, shard): an ack whose incarnation or tableId is not
 * the device's current one is ignored. The device id inside a batch must equal the one in its
 * topic; hubs reject a batch otherwise.
 *
 * Version 1 (no incarnation, no tableId, ack = [ 1, table, shard, seq, status, message ]) is
 * refused by a version 2 hub: it answers a version 1 "rejected" ack naming the required version,
 * so a version 1 device keeps its records and reports the message, and it counts the rejection.
 * A version 1 hub refuses version 2 batches as malformed (no ack): the device keeps its records.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CborError, Embedded, decodeCbor, encodeCbor, type CborValue } from '../../codec/cbor-envelope.js';
import type { Hlc, Version, WriteRejection } from '../../replication/replica-types.js';
import { decodeItem, encodeItem } from '../../codec/item-value.js';
import type { Item } from '../../model/attribute-value.js';

export const SYNC_BATCH_VERSION = 2;

export type Compression = 'none' | 'deflate';

export type SyncBatch = {
  readonly deviceId: string;
  readonly incarnation: string;
  readonly table: string;
  readonly tableId: string;
  readonly shard: number;
  readonly parent: number | undefined;
  readonly records: readonly { readonly seq: number; readonly bytes: Uint8Array }[];
  /**
   * Two-way sync: the device's cursor when it sent the batch. The records between it and the first
   * record are writes the device received from the hub, which it does not send back; the hub does
   * not count them as a sequence gap. Absent for tables synced up only (and from older devices).
   */
  readonly after?: number;
};

export type AckStatus = 'applied' | 'retry' | 'refused' | 'conflict';

// The rejection reasons the device acts on (a far-ahead winner sent back, a write outside its
// grants, a write stamped too far ahead), and the rejection's shape: defined
// with the engine side that produces them (replication/replica-types.ts), frozen here as wire.
export { BEHIND_A_FUTURE_CLOCK, CLOCK_AHEAD, UNAUTHORIZED } from '../../replication/replica-types.js';
export type { WriteRejection };

export type SyncAck = {
  readonly incarnation: string;
  readonly table: string;
  readonly tableId: string;
  readonly shard: number;
  readonly seq: number;
  readonly status: AckStatus;
  readonly message: string;
  readonly hubClock: Hlc;
  readonly rejections?: readonly WriteRejection[];
};

/** A batch of another format version; `legacy` names its table and shard when it is version 1. */
export class SyncVersionError extends CborError {
  constructor(
    readonly version: unknown,
    readonly legacy: { readonly deviceId: string; readonly table: string; readonly shard: number } | undefined,
  ) {
    super(`sync batch format version ${String(version)} is not accepted: this hub needs version ${SYNC_BATCH_VERSION} (upgrade the device)`);
  }
}

const STATUS_CODES: Record<AckStatus, number> = { applied: 0, retry: 1, refused: 2, conflict: 3 };
const STATUS_NAMES: readonly AckStatus[] = ['applied', 'retry', 'refused', 'conflict'];

/** Largest inflated body a hub accepts (bounds a decompression bomb). */
export const MAX_BATCH_BODY_BYTES = 64 * 1024 * 1024;

export function encodeSyncBatch(batch: SyncBatch, compression: Compression = 'none'): Uint8Array {
  const body = encodeCbor(batch.records.map((r) => [r.seq, new Embedded(r.bytes)]));
  return encodeCbor([
    SYNC_BATCH_VERSION,
    batch.deviceId,
    batch.incarnation,
    batch.table,
    batch.tableId,
    batch.shard,
    batch.parent ?? null,
    compression === 'deflate' ? 1 : 0,
    compression === 'deflate' ? deflateRawSync(body) : body,
    ...(batch.after !== undefined ? [batch.after] : []),
  ]);
}

/** Throws CborError for anything outside the grammar. Record bytes are views of `payload`. */
export function decodeSyncBatch(payload: Uint8Array): SyncBatch {
  const v = decodeCbor(payload);
  if (!Array.isArray(v)) throw new CborError('not a sync batch');
  if (v[0] !== SYNC_BATCH_VERSION) {
    const legacy = v[0] === 1 && typeof v[1] === 'string' && typeof v[2] === 'string' && typeof v[3] === 'number' ? { deviceId: v[1], table: v[2], shard: v[3] } : undefined;
    throw new SyncVersionError(v[0], legacy);
  }
  if (v.length !== 9 && v.length !== 10) throw new CborError('malformed sync batch');
  const [, deviceId, incarnation, table, tableId, shard, parent, compression, body, after] = v as CborValue[];
  if (after !== undefined && typeof after !== 'number') throw new CborError('malformed sync batch cursor');
  if (typeof deviceId !== 'string' || typeof incarnation !== 'string' || typeof table !== 'string' || typeof tableId !== 'string' || typeof shard !== 'number') {
    throw new CborError('malformed sync batch header');
  }
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
  return { deviceId, incarnation, table, tableId, shard, parent: parent ?? undefined, records, ...(after !== undefined ? { after } : {}) };
}

export function encodeSyncAck(ack: SyncAck): Uint8Array {
  const fields: CborValue[] = [SYNC_BATCH_VERSION, ack.incarnation, ack.table, ack.tableId, ack.shard, ack.seq, STATUS_CODES[ack.status], ack.message, [ack.hubClock.ms, ack.hubClock.counter]];
  if (ack.rejections && ack.rejections.length > 0) {
    fields.push(
      ack.rejections.map((r) => {
        const entry: CborValue[] = [r.seq, new Embedded(encodeItem(r.keys)), r.item ? new Embedded(encodeItem(r.item)) : null, r.hubItem ? new Embedded(encodeItem(r.hubItem)) : null, r.reason];
        if (r.hubVersion) entry.push([r.hubVersion.hlc.ms, r.hubVersion.hlc.counter, r.hubVersion.device, r.hubVersion.incarnation]);
        return entry;
      }),
    );
  }
  return encodeCbor(fields);
}

/** The version 1 ack that tells a version 1 device its batch was rejected (it keeps its records). */
export function encodeLegacyRejection(table: string, shard: number, message: string): Uint8Array {
  return encodeCbor([1, table, shard, 0, 1, message]);
}

export function decodeSyncAck(payload: Uint8Array): SyncAck {
  const v = decodeCbor(payload);
  if (!Array.isArray(v) || (v.length !== 9 && v.length !== 10) || v[0] !== SYNC_BATCH_VERSION) throw new CborError(`not a version ${SYNC_BATCH_VERSION} sync ack`);
  const [, incarnation, table, tableId, shard, seq, status, message, clock, rejected] = v as CborValue[];
  const statusName = typeof status === 'number' ? STATUS_NAMES[status] : undefined;
  if (typeof incarnation !== 'string' || typeof table !== 'string' || typeof tableId !== 'string' || typeof shard !== 'number' || typeof seq !== 'number' || statusName === undefined || typeof message !== 'string') {
    throw new CborError('malformed sync ack');
  }
  if (!Array.isArray(clock) || clock.length !== 2 || typeof clock[0] !== 'number' || typeof clock[1] !== 'number') throw new CborError('malformed sync ack clock');
  const rejections = rejected === undefined ? undefined : decodeRejections(rejected);
  return { incarnation, table, tableId, shard, seq, status: statusName, message, hubClock: { ms: clock[0], counter: clock[1] }, ...(rejections ? { rejections } : {}) };
}

function decodeRejections(value: CborValue): WriteRejection[] {
  if (!Array.isArray(value) || value.length === 0) throw new CborError('malformed sync ack rejections');
  return (value as CborValue[]).map((entry) => {
    if (!Array.isArray(entry) || (entry.length !== 5 && entry.length !== 6)) throw new CborError('malformed sync ack rejection');
    const [seq, keys, item, hubItem, reason, version] = entry as CborValue[];
    if (typeof seq !== 'number' || typeof reason !== 'string') throw new CborError('malformed sync ack rejection');
    const newItem = optionalItem(item);
    const hub = optionalItem(hubItem);
    const hubVersion = version === undefined ? undefined : versionOf(version);
    return { seq, keys: requiredItem(keys), ...(newItem ? { item: newItem } : {}), ...(hub ? { hubItem: hub } : {}), reason, ...(hubVersion ? { hubVersion } : {}) };
  });
}

function versionOf(v: CborValue): Version {
  if (!Array.isArray(v) || v.length !== 4) throw new CborError('malformed sync ack rejection version');
  const [ms, counter, device, incarnation] = v as CborValue[];
  if (typeof ms !== 'number' || typeof counter !== 'number' || typeof device !== 'string' || typeof incarnation !== 'string') throw new CborError('malformed sync ack rejection version');
  return { hlc: { ms, counter }, device, incarnation };
}

function requiredItem(v: CborValue | undefined): Item {
  if (!(v instanceof Embedded)) throw new CborError('malformed sync ack rejection item');
  try {
    return decodeItem(v.bytes);
  } catch (err) {
    throw new CborError(`malformed sync ack rejection item: ${(err as Error).message}`);
  }
}

function optionalItem(v: CborValue | undefined): Item | undefined {
  return v === null ? undefined : requiredItem(v);
}
