/**
 * Change records: the value of each entry of a change-log shard (`t/<table>/s/<shard>`, key =
 * sequence number, 8 bytes big-endian) and the unit a sync batch carries. CBOR via codec/cbor-envelope.ts,
 * format version 1, frozen; docs/change-record.md is the shared reference for the hub and the C side.
 *
 *   record  = change / gap
 *   change  = [ 1, event, keys, new, old, timeMs, hlc, sizeBytes, flags, ?origin ]
 *   event   = 1 ; INSERT   (no item was stored under the key)
 *           / 2 ; MODIFY   (an item was replaced by a different one)
 *           / 3 ; REMOVE   (an item was deleted)
 *   keys    = #6.24(bstr .cbor item)          ; the key attributes only
 *   new     = #6.24(bstr .cbor item) / null   ; the whole item after the write, when stored
 *   old     = #6.24(bstr .cbor item) / null   ; the whole item before the write, when stored
 *   timeMs  = uint                            ; approximate creation time, epoch milliseconds
 *   hlc     = [ ms: uint, counter: uint ]     ; hybrid logical clock (hlc.ts), never decreasing
 *                                             ;   within a shard; last-writer-wins at the hub
 *   sizeBytes = uint                          ; DynamoDB item size (spec §1.5) of keys + stored
 *                                             ;   images: the same number on every device
 *   flags   = uint                            ; bit 0: REMOVE done by TTL expiry (DynamoDB
 *                                             ;   reports it as userIdentity dynamodb.amazonaws.com)
 *                                             ; bit 1: version only: a received write that changed
 *                                             ;   no item, only its version (a delete where nothing
 *                                             ;   was stored, a put of the identical item); hub logs
 *                                             ;   only, so devices learn the newer version (REMOVE
 *                                             ;   without images, or MODIFY with the new image);
 *                                             ;   Streams readers and the forwarder skip it
 *   origin  = [ device: tstr, incarnation: tstr, hlc ]
 *                                             ; only on a write received from another store (a
 *                                             ;   device's write applied at a hub, a hub's write
 *                                             ;   applied at a device): the version that write
 *                                             ;   carries (stream/item-versions.ts). Absent: a local
 *                                             ;   write, whose version is (hlc, this store).
 *   gap     = [ 1, 0, firstSeq, lastSeq, records, bytes, timeMs, hlc ]
 *                                             ; records firstSeq..lastSeq (`records` of them,
 *                                             ;   `bytes` stored bytes) were dropped unsent by the
 *                                             ;   outbox policy 'drop-oldest'; stored at lastSeq
 *   item    = the item grammar of codec/item-value.ts
 *
 * Which images a record stores is the union of what the table's StreamViewType needs and what
 * sync needs (the new image); readers project a record down to the view type they were asked for.
 */
import { decodeItem, encodeItem } from '../codec/item-value.js';
import type { Item } from '../model/attribute-value.js';
import { CborError, Embedded, decodeCbor, encodeCbor, type CborValue } from '../codec/cbor-envelope.js';
import type { Hlc } from './hlc.js';
import type { Version } from './item-versions.js';

export const CHANGE_RECORD_VERSION = 1;

export type ChangeEventName = 'INSERT' | 'MODIFY' | 'REMOVE';

export type ChangeRecord = {
  readonly kind: 'change';
  readonly eventName: ChangeEventName;
  readonly keys: Item;
  readonly newImage?: Item;
  readonly oldImage?: Item;
  readonly timeMs: number;
  readonly hlc: Hlc;
  readonly sizeBytes: number;
  readonly ttl: boolean;
  /** The version of a write received from another store (absent for local writes). */
  readonly origin?: Version;
  /**
   * A received write that changed no item, only its version (flags bit 1): no change for Streams
   * readers, but devices holding an older version must learn it (down-publisher.ts).
   */
  readonly versionOnly?: true;
};

export type GapRecord = {
  readonly kind: 'gap';
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly records: number;
  readonly bytes: number;
  readonly timeMs: number;
  readonly hlc: Hlc;
};

export type StreamRecord = ChangeRecord | GapRecord;

const EVENT_CODES: Record<ChangeEventName, number> = { INSERT: 1, MODIFY: 2, REMOVE: 3 };
const EVENT_NAMES: readonly (ChangeEventName | undefined)[] = [undefined, 'INSERT', 'MODIFY', 'REMOVE'];
const FLAG_TTL = 1;
const FLAG_VERSION_ONLY = 2;

export function encodeChangeRecord(r: Omit<ChangeRecord, 'kind'>): Uint8Array {
  return encodeCbor([
    CHANGE_RECORD_VERSION,
    EVENT_CODES[r.eventName],
    new Embedded(encodeItem(r.keys)),
    r.newImage ? new Embedded(encodeItem(r.newImage)) : null,
    r.oldImage ? new Embedded(encodeItem(r.oldImage)) : null,
    Math.floor(r.timeMs),
    [r.hlc.ms, r.hlc.counter],
    r.sizeBytes,
    (r.ttl ? FLAG_TTL : 0) | (r.versionOnly ? FLAG_VERSION_ONLY : 0),
    ...(r.origin ? [[r.origin.device, r.origin.incarnation, [r.origin.hlc.ms, r.origin.hlc.counter]] as CborValue] : []),
  ]);
}

export function encodeGapRecord(r: Omit<GapRecord, 'kind'>): Uint8Array {
  return encodeCbor([CHANGE_RECORD_VERSION, 0, r.firstSeq, r.lastSeq, r.records, r.bytes, Math.floor(r.timeMs), [r.hlc.ms, r.hlc.counter]]);
}

/** Decodes a record; throws CborError on anything outside the grammar. Never aliases `bytes`. */
export function decodeStreamRecord(bytes: Uint8Array): StreamRecord {
  const v = decodeCbor(bytes);
  if (!Array.isArray(v) || v[0] !== CHANGE_RECORD_VERSION) throw new CborError('not a version 1 change record');
  const a = v as readonly CborValue[];
  if (a[1] === 0) {
    if (a.length !== 8) throw new CborError('malformed gap record');
    return {
      kind: 'gap',
      firstSeq: uint(a[2]),
      lastSeq: uint(a[3]),
      records: uint(a[4]),
      bytes: uint(a[5]),
      timeMs: uint(a[6]),
      hlc: hlc(a[7]),
    };
  }
  const eventName = typeof a[1] === 'number' ? EVENT_NAMES[a[1]] : undefined;
  if (!eventName || (a.length !== 9 && a.length !== 10)) throw new CborError('malformed change record');
  const origin = a.length === 10 ? decodeOrigin(a[9]) : undefined;
  const newImage = optionalItem(a[3]);
  const oldImage = optionalItem(a[4]);
  return {
    kind: 'change',
    eventName,
    keys: item(a[2]),
    ...(newImage ? { newImage } : {}),
    ...(oldImage ? { oldImage } : {}),
    timeMs: uint(a[5]),
    hlc: hlc(a[6]),
    sizeBytes: uint(a[7]),
    ttl: (uint(a[8]) & FLAG_TTL) !== 0,
    ...(origin ? { origin } : {}),
    ...((uint(a[8]) & FLAG_VERSION_ONLY) !== 0 ? { versionOnly: true as const } : {}),
  };
}

/**
 * The origin of a stored record (a write received from another store) without decoding its
 * items, or undefined for a local write or a gap: the sync agent sends only its own writes up.
 */
export function recordOrigin(bytes: Uint8Array): Version | undefined {
  const v = decodeCbor(bytes);
  return Array.isArray(v) && v.length === 10 && v[1] !== 0 ? decodeOrigin(v[9]) : undefined;
}

function decodeOrigin(v: CborValue | undefined): Version {
  if (!Array.isArray(v) || v.length !== 3 || typeof v[0] !== 'string' || typeof v[1] !== 'string') throw new CborError('malformed change record origin');
  return { device: v[0], incarnation: v[1], hlc: hlc(v[2]) };
}

function uint(v: CborValue | undefined): number {
  if (typeof v !== 'number') throw new CborError('expected an unsigned integer');
  return v;
}

function hlc(v: CborValue | undefined): Hlc {
  if (!Array.isArray(v) || v.length !== 2) throw new CborError('expected an hlc [ms, counter]');
  return { ms: uint(v[0]), counter: uint(v[1]) };
}

function item(v: CborValue | undefined): Item {
  if (!(v instanceof Embedded)) throw new CborError('expected an embedded item');
  try {
    return decodeItem(v.bytes);
  } catch (err) {
    throw new CborError(`malformed item in change record: ${(err as Error).message}`);
  }
}

function optionalItem(v: CborValue | undefined): Item | undefined {
  return v === null ? undefined : item(v);
}
