/**
 * Shard iterators: opaque strings a reader passes back to GetRecords. The iterator carries its
 * position; the engine keeps no state per iterator, so any number of readers cost nothing.
 *
 *   ShardIterator := "etsi1." base64url(JSON [streamArn, shard, seq, issuedAtMs])
 *
 * seq is the next sequence to read. An iterator expires 15 minutes after it was issued
 * (ExpiredIteratorException), as DynamoDB's do; GetRecords issues a fresh one each call.
 */
import { ValidationException } from '../model/errors.js';
import { ExpiredIteratorException } from './streams-errors.js';

export const ITERATOR_LIFETIME_MS = 15 * 60 * 1000;
const PREFIX = 'etsi1.';

export type ShardPosition = { readonly arn: string; readonly shard: number; readonly seq: number };

export function encodeShardIterator(position: ShardPosition, issuedAtMs: number): string {
  return PREFIX + Buffer.from(JSON.stringify([position.arn, position.shard, position.seq, issuedAtMs]), 'utf8').toString('base64url');
}

/** Decodes an iterator; ValidationException when malformed, ExpiredIteratorException when old. */
export function decodeShardIterator(iterator: string, nowMs: number): ShardPosition {
  const fields = iterator.startsWith(PREFIX) ? parse(iterator.slice(PREFIX.length)) : undefined;
  if (!fields) throw new ValidationException('Invalid ShardIterator');
  const [arn, shard, seq, issuedAtMs] = fields;
  if (nowMs - issuedAtMs > ITERATOR_LIFETIME_MS) {
    throw new ExpiredIteratorException(
      `Iterator expired. The iterator was created at time ${new Date(issuedAtMs).toUTCString()} while right now it is ${new Date(nowMs).toUTCString()} which is further in the future than the tolerated delay of ${ITERATOR_LIFETIME_MS} milliseconds.`,
    );
  }
  return { arn, shard, seq };
}

function parse(body: string): [string, number, number, number] | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    if (!Array.isArray(v) || v.length !== 4 || typeof v[0] !== 'string') return undefined;
    if (!v.slice(1).every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) return undefined;
    return v as [string, number, number, number];
  } catch {
    return undefined;
  }
}
