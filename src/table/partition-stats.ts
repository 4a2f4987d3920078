/**
 * Item count and item bytes (DynamoDB item sizes, spec §1.5) of each partition, kept in the
 * table's meta database and updated in the same txn as the items they count.
 *
 *   key   := 's' pid:u32be
 *   value := itemCount:f64be itemBytes:f64be
 *
 * A write txn accumulates deltas in a `StatsDelta` and flushes them once, before commit, so a
 * batch of 25 items costs one stats write per touched partition rather than 25.
 */
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import type { Table } from './table.js';

export type PartitionStats = { itemCount: number; itemBytes: number };

function statsKey(pid: number): Uint8Array {
  const key = new Uint8Array(5);
  key[0] = 0x73;
  new DataView(key.buffer).setUint32(1, pid);
  return key;
}

export function readPartitionStats(txn: ReadTxn, table: Table, pid: number): PartitionStats {
  const raw = txn.get(table.meta, statsKey(pid));
  if (!raw) return { itemCount: 0, itemBytes: 0 };
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return { itemCount: view.getFloat64(0), itemBytes: view.getFloat64(8) };
}

/** Sets a partition's statistics outright (a split computes its children's from what it moved). */
export function writePartitionStats(txn: WriteTxn, table: Table, pid: number, stats: PartitionStats): void {
  const value = new Uint8Array(16);
  const view = new DataView(value.buffer);
  view.setFloat64(0, stats.itemCount);
  view.setFloat64(8, stats.itemBytes);
  txn.put(table.meta, statsKey(pid), value);
}

export function clearPartitionStats(txn: WriteTxn, table: Table, pid: number): void {
  txn.delete(table.meta, statsKey(pid));
}

export class StatsDelta {
  private readonly deltas = new Map<Table, Map<number, PartitionStats>>();

  add(table: Table, pid: number, count: number, bytes: number): void {
    let perTable = this.deltas.get(table);
    if (!perTable) this.deltas.set(table, (perTable = new Map()));
    const d = perTable.get(pid);
    if (d) {
      d.itemCount += count;
      d.itemBytes += bytes;
    } else perTable.set(pid, { itemCount: count, itemBytes: bytes });
  }

  flush(txn: WriteTxn): void {
    for (const [table, perTable] of this.deltas) {
      for (const [pid, d] of perTable) {
        if (d.itemCount === 0 && d.itemBytes === 0) continue;
        const cur = readPartitionStats(txn, table, pid);
        writePartitionStats(txn, table, pid, { itemCount: cur.itemCount + d.itemCount, itemBytes: cur.itemBytes + d.itemBytes });
      }
    }
    this.deltas.clear();
  }
}
