/**
 * The order DynamoDB returns a set's members in, which edgetable stores them in: string and
 * binary sets bytewise (a string by its UTF-8 bytes, so '' first), number sets by value
 * (tier1 updateItem/basic capture, eu-west-2 2026-10). Sets are put in this order where they are
 * written (validation, ADD, DELETE), so a stored item, its change record and what sync ships
 * hold one form and reads return it as stored. Nothing relies on the order for meaning: set
 * equality (values-equal.ts) stays order-blind, so items stored before this order was kept
 * still compare equal to their sorted form.
 *
 * Members given here are validated: numbers canonical (one string per value), so members that
 * compare equal are duplicates.
 */
import { compareBytes } from './compare-values.js';
import { compareNumbers } from './number.js';
import { compareUtf8 } from './utf8.js';

type Compare<T> = (a: T, b: T) => number;

/** Each set type's member order. */
export const SET_ORDER = { SS: compareUtf8, NS: compareNumbers, BS: compareBytes } as const;

/**
 * `members` in `compare` order: `members` itself when already in order (checked in one pass,
 * the common case), else a sorted copy. Duplicates are kept, next to each other.
 */
export function sortMembers<T>(members: readonly T[], compare: Compare<T>): readonly T[] {
  for (let i = 1; i < members.length; i++) {
    // V8's TimSort: a sorted set plus a few new members sorts in about one pass.
    if (compare(members[i - 1] as T, members[i] as T) > 0) return members.slice().sort(compare);
  }
  return members;
}

/** Whether `sorted` (in `compare` order) holds two equal members. */
export function hasDuplicates<T>(sorted: readonly T[], compare: Compare<T>): boolean {
  for (let i = 1; i < sorted.length; i++) if (compare(sorted[i - 1] as T, sorted[i] as T) === 0) return true;
  return false;
}

/** `members` sorted with duplicates dropped: ADD's union of a set and the members added. */
export function uniqueSorted<T>(members: readonly T[], compare: Compare<T>): T[] {
  const sorted = sortMembers(members, compare);
  const out: T[] = [];
  for (const m of sorted) if (out.length === 0 || compare(out[out.length - 1] as T, m) !== 0) out.push(m);
  return out;
}
