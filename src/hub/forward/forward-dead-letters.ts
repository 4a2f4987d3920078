/**
 * Records the endpoint refused for good (classify-error.ts), kept in the hub's dead-letter table
 * (replication/dead-letters.ts) beside the records the hub itself refused, told apart by `source`:
 *
 *   stream (S, HASH)   "forward:<endpoint>/<table>/<shard>"
 *   seq    (N, RANGE)  the record's sequence number in the hub table's shard
 *   source = S "forward", endpoint, table, eventName (INSERT | MODIFY | REMOVE), version (S, the
 *   record's _et_hlc), reason (S, "forward: <error name>: <message>"), shard (N), refusedAt (N,
 *   epoch ms), key (M), image (M, the item that was refused; absent for a delete, and left out,
 *   with imageOmitted = true, when the dead letter would pass the 400 KB item limit)
 *
 * Written through db.promises (the engine's one asynchronous commit path) before the forwarder's
 * cursor moves past the record, so a refused record is forwarded or kept here, never neither; a
 * crash in between refuses it again and rewrites the same dead letter.
 */
import type { Edgetable } from '../../edgetable.js';
import type { AttributeValue, Item } from '../../model/attribute-value.js';
import { DEAD_LETTER_TABLE } from '../../replication/dead-letters.js';
import { encodeVersion } from './version-attribute.js';
import type { Refusal } from './forward-types.js';

const MAX_REASON_CHARS = 1000;

export async function deadLetterRefusals(db: Edgetable, endpoint: string, table: string, shard: number, refusals: readonly Refusal[], nowMs: number): Promise<void> {
  if (refusals.length === 0) return;
  db.replica.deadLetters(); // created on first use (startHub creates it at start)
  for (const r of refusals) {
    const item = forwardDeadLetter(endpoint, table, shard, r, nowMs);
    try {
      await db.promises.putItem({ TableName: DEAD_LETTER_TABLE, Item: item });
    } catch (err) {
      if ((err as Error).name !== 'ValidationException' || item['image'] === undefined) throw err;
      // Too large with the image (an item near 400 KB): kept without it, and said so.
      const { image: _image, ...rest } = item;
      await db.promises.putItem({ TableName: DEAD_LETTER_TABLE, Item: { ...rest, imageOmitted: { BOOL: true } } });
    }
  }
}

export function forwardDeadLetter(endpoint: string, table: string, shard: number, r: Refusal, nowMs: number): Item {
  const { record } = r;
  return {
    stream: { S: `forward:${endpoint}/${table}/${shard}` },
    seq: { N: String(r.seq) },
    source: { S: 'forward' },
    endpoint: { S: endpoint },
    table: { S: table },
    shard: { N: String(shard) },
    eventName: { S: record.eventName },
    version: { S: encodeVersion(record.hlc) },
    reason: { S: r.reason.slice(0, MAX_REASON_CHARS) },
    refusedAt: { N: String(nowMs) },
    key: { M: record.keys as Record<string, AttributeValue> },
    ...(record.newImage ? { image: { M: record.newImage as Record<string, AttributeValue> } } : {}),
  } as Item;
}
