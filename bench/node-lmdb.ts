/**
 * node-lmdb as the bench's raw contender and its LMDB probes use it directly (the part of its API
 * they call, typed), and farmhash's fingerprint for hash-first keys. Bench-only exception to
 * "node-lmdb only in storage/": these files measure LMDB itself, without edgetable.
 */
import { createRequire } from 'node:module';

export interface Dbi {
  close(): void;
  stat(txn: Txn): { pageSize: number; treeDepth: number; treeBranchPageCount: number; treeLeafPageCount: number; entryCount: number };
}
export interface Txn {
  getBinary(dbi: Dbi, key: Buffer): Buffer | null;
  putBinary(dbi: Dbi, key: Buffer, value: Uint8Array): void;
  commit(): void;
  abort(): void;
  reset(): void;
  renew(): void;
}
export interface Cursor {
  goToRange(key: Buffer): Buffer | null;
  goToFirst(): Buffer | null;
  goToLast(): Buffer | null;
  goToNext(): Buffer | null;
  goToPrev(): Buffer | null;
  getCurrentBinary(): Buffer | null;
  close(): void;
}
export interface Env {
  open(options: { path: string; mapSize: number; maxDbs: number; noSync?: boolean }): void;
  openDbi(options: { name: string; create: boolean; keyIsBuffer: true }): Dbi;
  beginTxn(options?: { readOnly: boolean }): Txn;
  close(): void;
}

const require = createRequire(import.meta.url);
export const lmdb = require('node-lmdb') as {
  Env: new () => Env;
  Cursor: new (txn: Txn, dbi: Dbi, options: { keyIsBuffer: true }) => Cursor;
};
export const farmhash = require('farmhash') as { fingerprint32(input: Buffer): number };
