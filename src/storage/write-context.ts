/** What a Store's write machinery (committers.ts, held-txn.ts, async-commits.ts) uses of the Store around it. */
import type { CommitFlushes } from './commit-flushes.js';
import type { FormatState } from './format-state.js';
import type { LogOwnership } from './log-ownership.js';
import type { StoreEnv } from './store-env.js';
import type { ResolvedStoreOptions } from './store-options.js';
import type { LmdbReadTxn, LmdbWriteTxn, TxnHost } from './txn.js';

export interface WriteContext {
  readonly path: string;
  readonly options: ResolvedStoreOptions;
  readonly host: TxnHost;
  readonly env: StoreEnv;
  readonly flushes: CommitFlushes;
  readonly format: FormatState;
  readonly log: LogOwnership;
  /** Makes `txn` the Store's write txn: write() inside it joins it when `group`, read() reads through it. */
  enterWrite(txn: LmdbWriteTxn, group: boolean): void;
  /** Ends `txn` (the Store's write txn) and commits or aborts its native txn; commit errors propagate raw (LMDB aborted it). */
  endWrite(txn: LmdbWriteTxn, commit: boolean): void;
  /** Ends `txn` as the Store's write txn and leaves its native txn open (held-txn.ts). */
  leaveWrite(txn: LmdbWriteTxn): void;
  enterRead(txn: LmdbReadTxn): void;
  leaveRead(): void;
  /** A write txn committed: stats().commits. */
  countCommit(): void;
  /** Runs a commit's afterCommit callbacks in commit order (see Store.afterCommit). */
  afterCommit(callbacks: readonly (() => void)[], replaySettled?: boolean): void;
  /** Applies a redo record's changes in `txn`, as the write that logged them made them. */
  applyChanges(txn: LmdbWriteTxn, payload: Uint8Array): void;
}

/** Seconds since `started` (process.hrtime.bigint()). */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
