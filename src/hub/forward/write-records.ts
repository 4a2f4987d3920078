/**
 * Writes one batch of change records to the endpoint and returns only when every one of them was
 * acknowledged: written, or refused by the version condition (the endpoint already holds the same
 * or a newer version: counted in conditionalSkips, not an error). Until then it retries, with
 * exponential back-off and full jitter (backoff.ts): throttling, unprocessed items, and any other
 * failure (counted in errors and reported as lastError; a record the endpoint keeps refusing
 * holds its shard back, visibly, rather than being dropped). Returns early only when `signal`
 * aborts; the caller then does not move its cursor.
 *
 * Two write modes:
 * - 'conditional' (default): one PutItem / DeleteItem per key with the version condition
 *   (version-attribute.ts), `concurrency` at a time. BatchWriteItem takes no condition, so this is
 *   the mode that guarantees an older version never replaces a newer one, whoever else writes.
 * - 'batch': BatchWriteItem, 25 requests a call, UnprocessedItems resent. Unconditional: correct
 *   only while this hub is the endpoint table's one writer (its change log is already in version
 *   order per key); faster.
 * Within a batch only the last record per key is sent (a shard's records are in commit order).
 */
import type { ChangeRecord } from '../../replication/replica-types.js';
import { backoffMs, pause } from './backoff.js';
import { toSdkItem, type EndpointClient, type WriteRequest } from './endpoint-client.js';
import { encodeVersion, newerThanCondition, VERSION_ATTRIBUTE } from './version-attribute.js';

export type WriteMode = 'conditional' | 'batch';

export type WriteCounters = {
  forwarded: number;
  conditionalSkips: number;
  retries: number;
  throttled: number;
  unprocessedItems: number;
  errors: number;
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

const BATCH_WRITE_MAX = 25;
const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** The records of one table to send; only the last per key (by `keyId`) is written. */
export async function writeRecords(s: WriteSettings, tableName: string, records: readonly { keyId: string; record: ChangeRecord }[]): Promise<void> {
  const last = new Map<string, ChangeRecord>();
  for (const { keyId, record } of records) {
    last.delete(keyId);
    last.set(keyId, record);
  }
  const todo = [...last.values()];
  if (s.mode === 'batch') await writeBatches(s, tableName, todo);
  else await writeConditional(s, tableName, todo);
}

async function writeConditional(s: WriteSettings, tableName: string, records: ChangeRecord[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < records.length && !s.signal.aborted) await writeOne(s, tableName, records[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(s.concurrency, records.length) }, worker));
}

async function writeOne(s: WriteSettings, tableName: string, record: ChangeRecord): Promise<void> {
  const version = encodeVersion(record.hlc);
  for (let attempt = 0; !s.signal.aborted; attempt++) {
    try {
      if (record.eventName === 'REMOVE') {
        await s.client.deleteItem({ TableName: tableName, Key: toSdkItem(record.keys), ...newerThanCondition(version) });
      } else {
        await s.client.putItem({ TableName: tableName, Item: versioned(record, version), ...newerThanCondition(version) });
      }
      s.counters.forwarded += 1;
      return;
    } catch (err) {
      if ((err as Error).name === 'ConditionalCheckFailedException') {
        s.counters.conditionalSkips += 1;
        return;
      }
      await failed(s, err, attempt);
    }
  }
}

async function writeBatches(s: WriteSettings, tableName: string, records: ChangeRecord[]): Promise<void> {
  for (let i = 0; i < records.length && !s.signal.aborted; i += BATCH_WRITE_MAX) {
    let pending: WriteRequest[] = records.slice(i, i + BATCH_WRITE_MAX).map((r) =>
      r.eventName === 'REMOVE' ? { DeleteRequest: { Key: toSdkItem(r.keys) } } : { PutRequest: { Item: versioned(r, encodeVersion(r.hlc)) } },
    );
    for (let attempt = 0; pending.length > 0 && !s.signal.aborted; ) {
      const sent = pending.length;
      try {
        pending = (await s.client.batchWriteItem({ [tableName]: pending }))[tableName] ?? [];
      } catch (err) {
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
}

function versioned(record: ChangeRecord, version: string) {
  return { ...toSdkItem(record.newImage!), [VERSION_ATTRIBUTE]: { S: version } };
}

async function failed(s: WriteSettings, err: unknown, attempt: number): Promise<void> {
  if (s.signal.aborted) return; // stopping: the request was abandoned, not refused
  const name = (err as Error).name;
  if (THROTTLING.has(name)) s.counters.throttled += 1;
  else {
    s.counters.errors += 1;
    s.counters.lastError = `${name}: ${(err as Error).message}`;
  }
  s.counters.retries += 1;
  await pause(backoffMs(attempt, s.baseBackoffMs, s.maxBackoffMs), s.signal);
}
