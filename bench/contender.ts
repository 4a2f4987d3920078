/**
 * The interface every contender implements: the same logical operations, each done the way that
 * stack does it best through its ordinary API. Results are counts so the runner can check that
 * all contenders did the same work (same items found, same rows returned).
 */
import type { KeyRef, Reading, Window } from './workload.js';

export interface Contender<Input = unknown> {
  readonly name: string;
  /** How this contender stores the data and what durability it gives, printed with the results. */
  readonly notes: readonly string[];
  open(dir: string): void;
  /** Maps a reading to this contender's request form; untimed, so it is not charged to any engine. */
  prepare(reading: Reading): Input;
  /** One durable write transaction per item. */
  putItem(input: Input): void;
  /** One durable write transaction for the whole batch (at most 25 items). */
  putBatch(inputs: readonly Input[]): void;
  /** 1 when the item exists (and was decoded), else 0. */
  getItem(key: KeyRef): number;
  /**
   * Reads the table from its start in pages of `pageItems`, up to the page that reaches `maxItems`
   * items or the end, calling `onPage` after each page; returns the items read.
   */
  scanAll(pageItems: number, maxItems: number, onPage?: () => void): number;
  /** The newest `count` readings of a sensor; returns how many came back. */
  queryLatest(sensorId: string, count: number): number;
  /** A sensor's readings with from <= ts <= to; returns how many came back. */
  queryWindow(window: Window): number;
  /** Adds 1 to the counter attribute `c` of an existing item, one durable txn. */
  incrementCounter(key: KeyRef): void;
  /** Writes the item only if its key is new, one durable txn; 1 when written, 0 when it existed. */
  putIfAbsent(input: Input): number;
  /**
   * Switches the store between its durable mode (false: every commit flushed, the mode it opens in)
   * and its mode without a flush per commit (true), for the 'put-noflush' workload; may reopen the
   * store. Absent when the contender has no such mode of its own.
   */
  setNoFlush?(noFlush: boolean): void;
  /** Extra measurements only this contender has (edgetable: expression compile). */
  extras?: Record<string, (sensorId: string) => void>;
  close(): void;
}
