/**
 * The structural check (store-check.ts) of an open store, repeated every `intervalMs` in a child
 * process: damage that appears while the store is open (a card failing under it) is found and
 * named (store-health.ts, /metrics' edgetable_store_corrupt) before a read stumbles on it. It
 * cannot stop a read of this process from following a damaged pointer between two checks: LMDB
 * follows them without any check of ours (docs/reliability.md, "What is not covered").
 * One check at a time; the timer does not keep the process alive and ends with the store.
 */
import { walkUnsupportedHere } from './data-file-walk.js';
import { clearDamage, reportDamage } from './store-health.js';
import { checkStore } from './store-check.js';
import { describeDamage } from './store-check-report.js';

export interface CheckedStore {
  readonly path: string;
  readonly closed: boolean;
}

/** Starts the checks; intervalMs 0 starts none. Returns what stops them. */
export function startPeriodicCheck(store: CheckedStore, intervalMs: number, check = checkStore): () => void {
  if (intervalMs <= 0 || walkUnsupportedHere() !== null) return () => undefined;
  let running = false;
  const timer = setInterval(() => {
    if (store.closed) return clearInterval(timer);
    if (running) return;
    running = true;
    void check(store.path)
      .then((result) => {
        if (result.outcome === 'damaged') reportDamage(store.path, describeDamage(result).join('; '));
        else if (result.outcome === 'clean') clearDamage(store.path);
      })
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
