/**
 * A partition map: the sorted, gap-free list of hash ranges that the partitions of one table (or
 * one GSI) own. Every 32-bit partition hash falls in exactly one range `[start, end)`; `end` of the
 * last range is 2^32. Tables and GSIs share this module (DESIGN.md, "Partitions grow and split").
 */

export const HASH_SPACE = 0x1_0000_0000;

export type PartitionRange = {
  /** Stable id, never reused within a table: it names the partition's sub-database. */
  readonly id: number;
  readonly start: number;
  /** Exclusive; HASH_SPACE for the last range. */
  readonly end: number;
  /** Id of the partition this one split from, if any (stream shard lineage relies on it). */
  readonly parent?: number;
};

export type PartitionMap = readonly PartitionRange[];

/** `count` equal ranges with ids 0..count-1. */
export function createPartitionMap(count: number): PartitionMap {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`partition count must be a positive integer: ${count}`);
  const ranges: PartitionRange[] = [];
  for (let i = 0; i < count; i++) {
    ranges.push({ id: i, start: Math.floor((i * HASH_SPACE) / count), end: Math.floor(((i + 1) * HASH_SPACE) / count) });
  }
  return Object.freeze(ranges);
}

/** Index into `map` of the range holding `hash`, by binary search. */
export function findPartitionIndex(map: PartitionMap, hash: number): number {
  let lo = 0;
  let hi = map.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (map[mid]!.start <= hash) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Hash range of one parallel-scan segment: floor(hash * total / 2^32) === segment. */
export function segmentHashRange(segment: number, totalSegments: number): { start: number; end: number } {
  return {
    start: Math.ceil((segment * HASH_SPACE) / totalSegments),
    end: Math.ceil(((segment + 1) * HASH_SPACE) / totalSegments),
  };
}

/**
 * Default partition count from provisioned throughput, DynamoDB's classic formula (spec §5.8):
 * ceil(RCU / 3000 + WCU / 1000), at least 1.
 */
export function partitionCountForThroughput(readUnits: number, writeUnits: number, partitionReadUnits = 3000, partitionWriteUnits = 1000): number {
  return Math.max(1, Math.ceil(readUnits / partitionReadUnits + writeUnits / partitionWriteUnits));
}
