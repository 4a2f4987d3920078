import type { WriteTxn } from '../storage/txn.js';

/**
 * A txn function committed on the engine's asynchronous commit path (ops/commit-queue.ts
 * submitTxn, through db.promises); resolves with its result once durable. The function may run
 * more than once (storage/store.ts writeAsync), so it decides only on what it reads in its txn.
 */
export type Commit = <T>(plan: (txn: WriteTxn) => T) => Promise<T>;
