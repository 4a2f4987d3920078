/**
 * Writes one batch of change records to the endpoint and returns only when every one of them was
 * settled: written, refused by the version condition (the endpoint already holds the same or a
 * newer version: counted in conditionalSkips, not an error), or refused for good (a permanent
 * error, classify-error.ts: returned to the caller, which dead-letters the record and moves on).
 * Throttling, unprocessed items and retryable failures (5xx, network, credentials; counted in
 * errors and reported as lastError) are retried with exponential back-off and full jitter
 * (backoff.ts), so a record the endpoint cannot take yet holds its shard back, visibly. Returns
 * early only when `signal` aborts; the caller then does not move its cursor.
 *
 * Two write modes:
 * - 'conditional' (default): one PutItem / DeleteItem per key with the version condition
 *   (version-attribute.ts), `concurrency` at a time. BatchWriteItem takes no condition, so this is
 *   the mode that guarantees an older version never replaces a newer one, whoever else writes.
 * - 'batch': BatchWriteItem, 25 requests a call, UnprocessedItems resent. Unconditional: correct
 *   only while this hub is the endpoint table's one writer (its change log is already in version
 *   order per key); faster. A call refused as a whole for a permanent reason (one poison item
 *   fails the whole call) is split: its records are written one at a time, unconditionally as
 *   the batch would have, so the good ones reach the endpoint and only the poison is returned.
 *   Rewriting one the call had written already is harmless: the same item, the same version.
 * Within a batch only the last record per key is sent (a shard's records are in commit order),
 * so per key at most one write is in flight and the order per key holds.
 */
import type { ChangeRecord } from '../../replication/replica-types.js';
import type { ForwardRecord, Refusal, WriteMode } from './forward-types.js';
import { backoffMs, pause } from './backoff.js';
import { classifyEndpointError, forwardReason } from './classify-error.js';
import { toSdkItem, type EndpointClient, type WriteRequest } from './endpoint-client.js';
import { encodeVersion, newerThanCondition, VERSION_ATTRIBUTE } from './version-attribute.js';

export type { ForwardRecord, Refusal, WriteMode };


export type WriteCounters = {
  forwarded: number;
  conditionalSkips: number;
  retries: number;
  throttled: number;
  unprocessedItems: number;
  errors: number;
  /** Records the endpoint refused for good (each then dead-lettered by the caller). */
  permanentFailures: number;
  lastError?: string;
};

export type WriteSettings = {
  readonly client: EndpointClient;
  readonly mode: WriteMode;
  readonly concurrency: number;
  readonly baseBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly counters: WriteCounters;
  readonly signal: AbortSignal;
};

/** A change record to forward; `keyId` identifies its key, `seq` is its place in its shard. */

const BATCH_WRITE_MAX = 25;

/** Returns the records refused for good, in the order given. */
export async function writeRecords(s: WriteSettings, tableName: string, records: readonly ForwardRecord[]): Promise<Refusal[]> {
  const last = new Map<string, ForwardRecord>();
  for (const r of records) {
    last.delete(r.keyId);
    last.set(r.keyId, r);
  }
  const todo = [...last.values()];
  const refused = s.mode === 'batch' ? await writeBatches(s, tableName, todo) : await writeConditional(s, tableName, todo);
  return refused.sort((a, b) => a.seq - b.seq);
}

async function writeConditional(s: WriteSettings, tableName: string, records: ForwardRecord[]): Promise<Refusal[]> {
  const refused: Refusal[] = [];
  let next = 0;
  const worker = async () => {
    while (next < records.length && !s.signal.aborted) {
      const refusal = await writeOne(s, tableName, records[next++]!, true);
      if (refusal) refused.push(refusal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(s.concurrency, records.length) }, worker));
  return refused;
}

/** One PutItem or DeleteItem, retried until settled; the refusal when the endpoint refuses it for good. */
async function writeOne(s: WriteSettings, tableName: string, r: ForwardRecord, conditional: boolean): Promise<Refusal | undefined> {
  const { record } = r;
  const version = encodeVersion(record.hlc);
  const condition = conditional ? newerThanCondition(version) : {};
  for (let attempt = 0; !s.signal.aborted; attempt++) {
    try {
      if (record.eventName === 'REMOVE') await s.client.deleteItem({ TableName: tableName, Key: toSdkItem(record.keys), ...condition });
      else await s.client.putItem({ TableName: tableName, Item: versioned(record, version), ...condition });
      s.counters.forwarded += 1;
      return undefined;
    } catch (err) {
      const kind = classifyEndpointError(err);
      if (kind === 'superseded' && conditional) {
        s.counters.conditionalSkips += 1;
        return undefined;
      }
      if (kind === 'permanent' && !s.signal.aborted) return refuse(s, r, err);
      await failed(s, err, attempt);
    }
  }
  return undefined;
}

async function writeBatches(s: WriteSettings, tableName: string, records: ForwardRecord[]): Promise<Refusal[]> {
  const refused: Refusal[] = [];
  for (let i = 0; i < records.length && !s.signal.aborted; i += BATCH_WRITE_MAX) {
    const chunk = records.slice(i, i + BATCH_WRITE_MAX);
    let pending: WriteRequest[] = chunk.map(({ record: r }) =>
      r.eventName === 'REMOVE' ? { DeleteRequest: { Key: toSdkItem(r.keys) } } : { PutRequest: { Item: versioned(r, encodeVersion(r.hlc)) } },
    );
    for (let attempt = 0; pending.length > 0 && !s.signal.aborted; ) {
      const sent = pending.length;
      try {
        pending = (await s.client.batchWriteItem({ [tableName]: pending }))[tableName] ?? [];
      } catch (err) {
        if (classifyEndpointError(err) === 'permanent' && !s.signal.aborted) {
          // One poison item fails the whole call: find it by writing the chunk's records one at a time.
          for (const r of chunk) {
            if (s.signal.aborted) break;
            const refusal = await writeOne(s, tableName, r, false);
            if (refusal) refused.push(refusal);
          }
          break;
        }
        await failed(s, err, attempt++);
        continue;
      }
      s.counters.forwarded += sent - pending.length;
      if (pending.length > 0) {
        s.counters.unprocessedItems += pending.length;
        s.counters.retries += 1;
        await pause(backoffMs(attempt++, s.baseBackoffMs, s.maxBackoffMs), s.signal);
      } else {
        attempt = 0;
      }
    }
  }
  return refused;
}

function versioned(record: ChangeRecord, version: string) {
  return { ...toSdkItem(record.newImage!), [VERSION_ATTRIBUTE]: { S: version } };
}

function refuse(s: WriteSettings, r: ForwardRecord, error: unknown): Refusal {
  const reason = forwardReason(error);
  s.counters.permanentFailures += 1;
  s.counters.lastError = reason;
  return { ...r, error, reason };
}

async function failed(s: WriteSettings, err: unknown, attempt: number): Promise<void> {
  if (s.signal.aborted) return; // stopping: the request was abandoned, not refused
  if (classifyEndpointError(err) === 'throttled') s.counters.throttled += 1;
  else {
    s.counters.errors += 1;
    s.counters.lastError = `${(err as Error).name}: ${(err as Error).message}`;
  }
  s.counters.retries += 1;
  await pause(backoffMs(attempt, s.baseBackoffMs, s.maxBackoffMs), s.signal);
}
