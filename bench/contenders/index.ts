/** The contenders by id, in report order. */
import type { Contender } from '../contender.js';
import { createContender as edgetable } from './edgetable.js';
import { createContender as rawLmdb } from './raw-lmdb.js';
import { createContender as sqlite } from './sqlite.js';

export const CONTENDERS = {
  edgetable: edgetable as () => Contender,
  'edgetable-log': (() => edgetable('log')) as () => Contender,
  'raw-lmdb': rawLmdb as () => Contender,
  sqlite: sqlite as () => Contender,
} as const;

export type ContenderId = keyof typeof CONTENDERS;
