/**
 * The dead-letter table's bounds (replication/dead-letters.ts): a retention (a dead letter older than
 * `retentionMs` by its refusedAt is deleted) and a count cap (past `maxItems`, the oldest by
 * refusedAt are deleted first). Both are counted (expired, dropped) and the hub's status shows the
 * fill ratio, which rises before anything is dropped for the cap.
 *
 * Through the public API only: the count is DescribeTable's ItemCount (exact, LMDB keeps each
 * tree's entry count), the sweep a Scan of three attributes and deletes through db.promises. The
 * sweep reads the whole table, so it runs only when the table is over its cap or once per
 * `sweepEveryMs` (default: a tenth of the retention, at most an hour), yielding between pages.
 */
import type { Edgetable } from '../edgetable.js';
import type { AttributeValue } from '../model/attribute-value.js';
import { DEAD_LETTER_TABLE } from '../replication/dead-letters.js';

export const DEFAULT_DEAD_LETTER_MAX_ITEMS = 100_000;
export const DEFAULT_DEAD_LETTER_RETENTION_MS = 30 * 86_400_000;

export type DeadLetterLimits = { readonly maxItems: number; readonly retentionMs: number };

export type DeadLetterTrim = { readonly expired: number; readonly dropped: number };

const PAGE_ITEMS = 250;
const DELETE_BATCH = 25;
const DELETE_CALLS_IN_FLIGHT = 20;

/** Dead letters held now; 0 before the table exists. */
export function countDeadLetters(db: Edgetable): number {
  try {
    return db.describeTable({ TableName: DEAD_LETTER_TABLE }).Table?.ItemCount ?? 0;
  } catch (err) {
    if ((err as Error).name === 'ResourceNotFoundException') return 0;
    throw err;
  }
}

/** Deletes the expired dead letters and, past the cap, the oldest; returns how many of each. */
export async function trimDeadLetters(db: Edgetable, limits: DeadLetterLimits, nowMs: number): Promise<DeadLetterTrim> {
  const count = countDeadLetters(db);
  if (count === 0) return { expired: 0, dropped: 0 };
  type Page = ReturnType<Edgetable['scan']>;
  type Key = NonNullable<Page['LastEvaluatedKey']>;
  const keys: { key: Key; at: number }[] = [];
  let start: Key | undefined;
  do {
    const page = db.scan({
      TableName: DEAD_LETTER_TABLE,
      ProjectionExpression: '#s, #q, #r',
      ExpressionAttributeNames: { '#s': 'stream', '#q': 'seq', '#r': 'refusedAt' },
      Limit: PAGE_ITEMS,
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    for (const item of page.Items ?? []) {
      const at = item['refusedAt'];
      keys.push({ key: { stream: item['stream']!, seq: item['seq']! }, at: at && 'N' in at ? Number(at.N) : 0 });
    }
    start = page.LastEvaluatedKey;
    await new Promise((resolve) => setImmediate(resolve)); // other work runs between pages
  } while (start);
  keys.sort((a, b) => a.at - b.at);
  const cutoff = nowMs - limits.retentionMs;
  let expired = 0;
  while (expired < keys.length && keys[expired]!.at < cutoff) expired++;
  const dropped = Math.max(0, keys.length - expired - limits.maxItems);
  const doomed = keys.slice(0, expired + dropped);
  // Calls in flight together share one commit and one flush (db.promises), so a sweep of many
  // costs a few flushes, not one per 25.
  for (let i = 0; i < doomed.length; i += DELETE_BATCH * DELETE_CALLS_IN_FLIGHT) {
    const calls: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(doomed.length, i + DELETE_BATCH * DELETE_CALLS_IN_FLIGHT); j += DELETE_BATCH) {
      // The key is stream (S) and seq (N): the same in the output and the input shapes.
      const chunk = doomed.slice(j, j + DELETE_BATCH).map((d) => ({ DeleteRequest: { Key: d.key as unknown as Record<string, AttributeValue> } }));
      calls.push(db.promises.batchWriteItem({ RequestItems: { [DEAD_LETTER_TABLE]: chunk } }));
    }
    await Promise.all(calls);
  }
  return { expired, dropped };
}
