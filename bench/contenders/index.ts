/** The contenders by id, in report order. */
import type { Contender } from '../contender.js';
import { createContender as edgetable } from './edgetable.js';
import { createContender as rawLmdb } from './raw-lmdb.js';
import { createContender as sqlite } from './sqlite.js';

/** Writes of the synchronous API one LMDB txn holds in the `edgetable-log-held` contender (docs/decisions/013-held-writes.md). */
export const HELD_WRITES_PER_COMMIT = 400;

export const CONTENDERS = {
  edgetable: edgetable as () => Contender,
  'edgetable-log': (() => edgetable('log')) as () => Contender,
  'edgetable-log-held': (() => edgetable('log', HELD_WRITES_PER_COMMIT)) as () => Contender,
  'raw-lmdb': rawLmdb as () => Contender,
  sqlite: sqlite as () => Contender,
} as const;

export type ContenderId = keyof typeof CONTENDERS;
