/**
 * What every operation receives: the store, the catalog and the clock. Operations take and
 * return plain DynamoDB-shaped objects; they never know the wire (STYLE.md habit 7).
 */
import type { Throughput } from '../capacity/throughput.js';
import type { Catalog } from '../table/catalog.js';
import type { Store } from '../storage/store.js';

export type EngineContext = {
  readonly store: Store;
  readonly catalog: Catalog;
  /** Milliseconds since the epoch; injectable so tests are exact. */
  readonly now: () => number;
  /** Work that runs between requests: index backfills (scheduled by UpdateTable). */
  readonly background: BackgroundWork;
  /**
   * Token buckets and usage windows (capacity/throughput.ts). Contexts built by hand (tests) may
   * leave it out: then nothing is throttled or recorded.
   */
  readonly throughput?: Throughput;
  /**
   * Told the size (DynamoDB item bytes) of every Query and Scan page read, once it is read: the
   * young-generation hold sizes itself to large pages (young-generation.ts). Optional.
   */
  readonly pageRead?: (bytes: number) => void;
};

export type BackgroundWork = {
  scheduleBackfill(tableName: string, indexName: string): void;
  /** Starts a TTL pass now (it builds a table's expiry index when that is missing). */
  startSweep(): void;
};
