/**
 * One group commit of the bridge (ingest.ts): its batches written in order, each one
 * BatchWriteItem holding its readings and the dedup states of its devices, chained through the
 * earlier batches of the group that succeeded.
 *
 * The group is one store write (store.writeAsync: computed on the event loop, committed and
 * flushed on libuv workers). In it a StorageError fails every batch; a batch that fails otherwise
 * (a reading DynamoDB refuses) fails alone. When the store refused the group (BUSY: a batch failed
 * after writing) each batch commits alone, so one bad batch cannot hold the others back.
 */
import type { Edgetable } from '../edgetable.js';
import type { WireItem } from '../model/attribute-value.js';
import { StorageError } from '../storage/storage-error.js';
import { addDurable, type DedupState } from './dedup-state.js';
import type { FrameSource } from './frame-source.js';
import { stateItem } from './state-table.js';

/** Frames gathered into one BatchWriteItem. */
export type OpenBatch = {
  /** Item per key: the later seq wins when two frames share a key. */
  items: Map<string, { seq: number; item: WireItem }>;
  frames: number;
  /** Per device: the seqs this batch settles, and how many of them were dropped (not written). */
  devices: Map<string, { seqs: Set<number>; dropped: number; sources: Map<string, FrameSource> }>;
};

/** The failure (or null) of each batch, and the dedup states to adopt once the group is durable. */
export type GroupOutcome = { failures: (Error | null)[]; states: Map<string, DedupState> };

export interface GroupTarget {
  db: Edgetable;
  table: string;
  stateTable: string;
  /** The write time stamped on the dedup state items. */
  at: number;
  /** A device's durable dedup state before this group. */
  stateOf(deviceId: string): DedupState;
}

export async function commitBatchGroup(target: GroupTarget, batches: readonly OpenBatch[]): Promise<GroupOutcome> {
  const { db } = target;
  try {
    return await db.store.writeAsync(() => writeInOrder(target, batches));
  } catch (e) {
    if (!(e instanceof StorageError && e.code === 'BUSY') || db.store.closed) return { failures: batches.map(() => e as Error), states: new Map() };
  }
  const failures: (Error | null)[] = [];
  const states = new Map<string, DedupState>();
  for (const batch of batches) {
    try {
      const next = await db.store.writeAsync(() => writeBatch(target, batch, states));
      for (const [deviceId, state] of next) states.set(deviceId, state);
      failures.push(null);
    } catch (e) {
      // BUSY here means this batch failed after writing: nothing of it was written; report its own error.
      failures.push((e instanceof StorageError && e.code === 'BUSY' && e.cause instanceof Error ? e.cause : e) as Error);
    }
  }
  return { failures, states };
}

function writeInOrder(target: GroupTarget, batches: readonly OpenBatch[]): GroupOutcome {
  const failures: (Error | null)[] = [];
  const states = new Map<string, DedupState>();
  for (const batch of batches) {
    let next: Map<string, DedupState>;
    try {
      next = writeBatch(target, batch, states);
    } catch (e) {
      if (e instanceof StorageError) throw e;
      failures.push(e as Error);
      continue;
    }
    for (const [deviceId, state] of next) states.set(deviceId, state);
    failures.push(null);
  }
  return { failures, states };
}

/** Pure apart from the txn: the store may run it more than once (map growth, another commit in between). */
function writeBatch(target: GroupTarget, batch: OpenBatch, states: ReadonlyMap<string, DedupState>): Map<string, DedupState> {
  const { db, table, stateTable, at } = target;
  const next = new Map<string, DedupState>();
  for (const [deviceId, d] of batch.devices) next.set(deviceId, addDurable(states.get(deviceId) ?? target.stateOf(deviceId), d.seqs));
  const readings = [...batch.items.values()].map(({ item }) => ({ PutRequest: { Item: item } }));
  const stateItems = [...next].map(([deviceId, state]) => ({ PutRequest: { Item: stateItem(table, deviceId, state, at) } }));
  // A batch of only dropped (unstorable) frames writes just the dedup state.
  db.batchWriteItem({ RequestItems: { ...(readings.length > 0 ? { [table]: readings } : {}), [stateTable]: stateItems } });
  return next;
}
