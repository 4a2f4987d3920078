/**
 * `verify`: recomputes every secondary index of a table from its base items and compares the
 * result with what is stored, entry by entry. Runs in one read txn, so it sees one consistent
 * snapshot; memory grows with the number of entries of the index being checked (keys and values
 * of one index at a time).
 */
import { decodeItem } from '../codec/item-value.js';
import { compareBytes } from '../codec/key-bytes.js';
import { indexEntryFor } from '../indexes/index-entry.js';
import type { ReadTxn } from '../storage/txn.js';
import { encodeItemRecord, recordBody } from '../codec/item-record.js';
import type { IndexDefinition } from './table-definition.js';
import type { Table } from './table.js';

export type IndexVerification = {
  TableName: string;
  IndexName: string;
  /** Entries the base items imply. */
  Expected: number;
  /** Entries stored. */
  Stored: number;
  Missing: number;
  Extra: number;
  Different: number;
};

export function verifyTableIndexes(txn: ReadTxn, table: Table): IndexVerification[] {
  const indexes: IndexDefinition[] = [...table.def.LocalSecondaryIndexes, ...table.def.GlobalSecondaryIndexes.filter((ix) => ix.IndexStatus === 'ACTIVE')];
  return indexes.map((index) => verifyIndex(txn, table, index));
}

function verifyIndex(txn: ReadTxn, table: Table, index: IndexDefinition): IndexVerification {
  const expected = new Map<string, Uint8Array>();
  for (const partition of table.partitions) {
    for (const entry of txn.cursor(partition.db)) {
      const indexed = indexEntryFor(index, table.keySchema, decodeItem(recordBody(entry.value), 0, table.names), 'skip');
      if (indexed) expected.set(hex(indexed.key), encodeItemRecord(indexed.item, indexed.size));
    }
  }
  const dbs = index.kind === 'local'
    ? table.partitions.map((p) => p.localIndexes.get(index.IndexName)!)
    : table.globalIndex(index.IndexName)!.partitions.map((p) => p.db);
  const result: IndexVerification = { TableName: table.name, IndexName: index.IndexName, Expected: expected.size, Stored: 0, Missing: 0, Extra: 0, Different: 0 };
  const seen = new Set<string>();
  for (const db of dbs) {
    for (const entry of txn.cursor(db)) {
      result.Stored++;
      const key = hex(entry.key);
      const want = expected.get(key);
      if (!want) result.Extra++;
      else {
        seen.add(key);
        if (!sameRecord(want, entry.value)) result.Different++;
      }
    }
  }
  result.Missing = expected.size - seen.size;
  return result;
}

/** Records compare by decoded content: CBOR map order may differ between equal items. */
function sameRecord(a: Uint8Array, b: Uint8Array): boolean {
  if (compareBytes(a, b) === 0) return true;
  const x = decodeItem(recordBody(a));
  const y = decodeItem(recordBody(b));
  return JSON.stringify(sorted(x)) === JSON.stringify(sorted(y));
}

function sorted(item: object): unknown {
  return Object.fromEntries(Object.entries(item).sort(([p], [q]) => (p < q ? -1 : 1)).map(([k, v]) => [k, normalise(v)]));
}

function normalise(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(normalise);
  if (v && typeof v === 'object') return sorted(v);
  return v;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}
