/**
 * What this process knows of each open store's integrity, by folder: damage found by a periodic
 * check (periodic-check.ts) or met by a read (a StorageError 'CORRUPT'). Read by /metrics
 * (edgetable_store_corrupt), which must answer whatever the store's state.
 */
import { resolve } from 'node:path';

const damaged = new Map<string, string>();

export function reportDamage(path: string, why: string): void {
  damaged.set(resolve(path), why);
}

/** Why the store at `path` is known damaged, or null. */
export function knownDamage(path: string): string | null {
  return damaged.get(resolve(path)) ?? null;
}

/** After a clean check (a store replaced by a restore or a salvage). */
export function clearDamage(path: string): void {
  damaged.delete(resolve(path));
}
