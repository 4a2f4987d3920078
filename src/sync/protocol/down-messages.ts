/**
 * Wire formats of the down direction (hub -> device) of two-way sync, format version 1, CBOR via
 * codec/cbor-envelope.ts (docs/sync-protocol.md, "Down messages"):
 *
 *   subscription = [ 1, incarnation: tstr, [ * [ table: tstr, direction: uint, keys, tableId ] ] ]
 *     direction  = 1 down / 2 both
 *     keys       = null (the whole table) / [ * [ 0, tstr ] / [ 1, tstr (a number) ] / [ 2, bstr ] ]
 *     tableId    = tstr / null       ; the device's TableId of the table, null when it has none
 *   down         = [ 1, kind, table: tstr, id: tstr, body ]
 *     kind 0 schema    body = tstr              ; JSON { "table": the hub table's CreateTable shape
 *                                                ;   (table-schema.ts, indexes), "phase": "base" / "delta" }
 *     kind 1 changes   body = [ baseId: tstr / null, [ * entry ] ]   ; baseId: a page of a base read
 *     kind 2 base done body = baseId: tstr      ; every page of that base read was sent
 *     kind 3 refused   body = tstr              ; why the hub refuses the subscription (not acked)
 *   entry        = [ event: uint, keys: #6.24(bstr), image: #6.24(bstr) / null, hlc, device: tstr, incarnation: tstr ]
 *     event      = 1 put / 3 remove; (hlc, device, incarnation) is the write's version
 *   downAck      = [ 1, incarnation: tstr, table: tstr, id: tstr, status: uint, message: tstr ]
 *     status     = 0 applied (committed on the device) / 1 retry / 2 conflict (the device's table
 *                  has another key schema: nothing is applied until it resubscribes)
 */
import { decodeItem, encodeItem } from '../../codec/item-value.js';
import { CborError, Embedded, decodeCbor, encodeCbor, type CborValue } from '../../codec/cbor-envelope.js';
import type { Item } from '../../model/attribute-value.js';
import type { DownEntry } from '../../replication/replica-types.js';

export const DOWN_FORMAT_VERSION = 1;

export type Direction = 'up' | 'down' | 'both';

/** A partition key value as a device names it: a string (S), a number (N) or bytes (B). */
export type PartitionKeyValue = string | number | Uint8Array;

export type TableSubscription = {
  readonly table: string;
  readonly direction: 'down' | 'both';
  /** Undefined: the whole table. Numbers travel as decimal strings. */
  readonly partitionKeys?: readonly WirePartitionKey[];
  readonly tableId?: string;
};

export type WirePartitionKey = { readonly type: 'S' | 'N' | 'B'; readonly value: string | Uint8Array };

export type Subscription = { readonly incarnation: string; readonly tables: readonly TableSubscription[] };

export type { DownEntry };

export type DownMessage =
  | { readonly kind: 'schema'; readonly table: string; readonly id: string; readonly schema: string }
  | { readonly kind: 'changes'; readonly table: string; readonly id: string; readonly baseId?: string; readonly entries: readonly DownEntry[] }
  | { readonly kind: 'base-done'; readonly table: string; readonly id: string; readonly baseId: string }
  | { readonly kind: 'refused'; readonly table: string; readonly id: string; readonly message: string };

export type DownAckStatus = 'applied' | 'retry' | 'conflict';

export type DownAck = { readonly incarnation: string; readonly table: string; readonly id: string; readonly status: DownAckStatus; readonly message: string };

const DIRECTIONS = { down: 1, both: 2 } as const;
const KEY_TYPES = { S: 0, N: 1, B: 2 } as const;
const KINDS = ['schema', 'changes', 'base-done', 'refused'] as const;
const ACK_STATUSES: readonly DownAckStatus[] = ['applied', 'retry', 'conflict'];

export function toWirePartitionKey(value: PartitionKeyValue): WirePartitionKey {
  if (typeof value === 'string') return { type: 'S', value };
  if (typeof value === 'number') return { type: 'N', value: String(value) };
  return { type: 'B', value };
}

export function encodeSubscription(s: Subscription): Uint8Array {
  return encodeCbor([
    DOWN_FORMAT_VERSION,
    s.incarnation,
    s.tables.map((t) => [
      t.table,
      DIRECTIONS[t.direction],
      t.partitionKeys ? t.partitionKeys.map((k) => [KEY_TYPES[k.type], k.value]) : null,
      t.tableId ?? null,
    ]),
  ]);
}

export function decodeSubscription(payload: Uint8Array): Subscription {
  const v = decodeCbor(payload);
  if (!Array.isArray(v) || v.length !== 3 || v[0] !== DOWN_FORMAT_VERSION || typeof v[1] !== 'string' || !Array.isArray(v[2])) throw new CborError('malformed down subscription');
  const tables = (v[2] as CborValue[]).map((t): TableSubscription => {
    if (!Array.isArray(t) || t.length !== 4 || typeof t[0] !== 'string' || (t[1] !== 1 && t[1] !== 2)) throw new CborError('malformed table subscription');
    const [table, direction, keys, tableId] = t as CborValue[];
    if (tableId !== null && typeof tableId !== 'string') throw new CborError('malformed table subscription tableId');
    let partitionKeys: WirePartitionKey[] | undefined;
    if (keys !== null) {
      if (!Array.isArray(keys)) throw new CborError('malformed subscription partition keys');
      partitionKeys = (keys as CborValue[]).map((k) => {
        if (!Array.isArray(k) || k.length !== 2) throw new CborError('malformed subscription partition key');
        if (k[0] === 0 && typeof k[1] === 'string') return { type: 'S', value: k[1] };
        if (k[0] === 1 && typeof k[1] === 'string') return { type: 'N', value: k[1] };
        if (k[0] === 2 && k[1] instanceof Uint8Array) return { type: 'B', value: k[1] };
        throw new CborError('malformed subscription partition key');
      });
    }
    return { table: table as string, direction: direction === 1 ? 'down' : 'both', ...(partitionKeys ? { partitionKeys } : {}), ...(typeof tableId === 'string' ? { tableId } : {}) };
  });
  return { incarnation: v[1], tables };
}

export function encodeDownMessage(m: DownMessage): Uint8Array {
  const head = [DOWN_FORMAT_VERSION, KINDS.indexOf(m.kind), m.table, m.id];
  switch (m.kind) {
    case 'schema':
      return encodeCbor([...head, m.schema]);
    case 'changes':
      return encodeCbor([...head, [m.baseId ?? null, m.entries.map(encodeEntry)]]);
    case 'base-done':
      return encodeCbor([...head, m.baseId]);
    case 'refused':
      return encodeCbor([...head, m.message]);
  }
}

function encodeEntry(e: DownEntry): CborValue {
  return [e.remove ? 3 : 1, new Embedded(encodeItem(e.keys)), e.image ? new Embedded(encodeItem(e.image)) : null, [e.version.hlc.ms, e.version.hlc.counter], e.version.device, e.version.incarnation];
}

export function decodeDownMessage(payload: Uint8Array): DownMessage {
  const v = decodeCbor(payload);
  if (!Array.isArray(v) || v.length !== 5 || v[0] !== DOWN_FORMAT_VERSION || typeof v[2] !== 'string' || typeof v[3] !== 'string') throw new CborError('malformed down message');
  const kind = typeof v[1] === 'number' ? KINDS[v[1]] : undefined;
  const table = v[2];
  const id = v[3];
  const body = v[4] as CborValue;
  switch (kind) {
    case 'schema':
    case 'refused':
      if (typeof body !== 'string') throw new CborError(`malformed down ${kind}`);
      return kind === 'schema' ? { kind, table, id, schema: body } : { kind, table, id, message: body };
    case 'base-done':
      if (typeof body !== 'string') throw new CborError('malformed down base-done');
      return { kind, table, id, baseId: body };
    case 'changes': {
      if (!Array.isArray(body) || body.length !== 2 || (body[0] !== null && typeof body[0] !== 'string') || !Array.isArray(body[1])) throw new CborError('malformed down changes');
      const entries = (body[1] as CborValue[]).map(decodeEntry);
      return { kind, table, id, ...(typeof body[0] === 'string' ? { baseId: body[0] } : {}), entries };
    }
    default:
      throw new CborError('unknown down message kind');
  }
}

function decodeEntry(v: CborValue): DownEntry {
  if (!Array.isArray(v) || v.length !== 6 || (v[0] !== 1 && v[0] !== 3) || !(v[1] instanceof Embedded) || (v[2] !== null && !(v[2] instanceof Embedded))) throw new CborError('malformed down entry');
  const hlc = v[3];
  if (!Array.isArray(hlc) || hlc.length !== 2 || typeof hlc[0] !== 'number' || typeof hlc[1] !== 'number' || typeof v[4] !== 'string' || typeof v[5] !== 'string') throw new CborError('malformed down entry version');
  const remove = v[0] === 3;
  if (!remove && v[2] === null) throw new CborError('a down put needs its image');
  const keys = decodeItem((v[1] as Embedded).bytes);
  const image = v[2] instanceof Embedded ? decodeItem(v[2].bytes) : undefined;
  return { remove, keys, ...(image && !remove ? { image } : {}), version: { hlc: { ms: hlc[0], counter: hlc[1] }, device: v[4], incarnation: v[5] } };
}

export function encodeDownAck(a: DownAck): Uint8Array {
  return encodeCbor([DOWN_FORMAT_VERSION, a.incarnation, a.table, a.id, ACK_STATUSES.indexOf(a.status), a.message]);
}

export function decodeDownAck(payload: Uint8Array): DownAck {
  const v = decodeCbor(payload);
  if (!Array.isArray(v) || v.length !== 6 || v[0] !== DOWN_FORMAT_VERSION) throw new CborError('malformed down ack');
  const [, incarnation, table, id, status, message] = v as CborValue[];
  const name = typeof status === 'number' ? ACK_STATUSES[status] : undefined;
  if (typeof incarnation !== 'string' || typeof table !== 'string' || typeof id !== 'string' || name === undefined || typeof message !== 'string') throw new CborError('malformed down ack');
  return { incarnation, table, id, status: name, message };
}
