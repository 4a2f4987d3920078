/**
 * The hub's forwarder (docs/sync.md "Forwarding to DynamoDB"): copies the hub's merged tables to a
 * DynamoDB-compatible endpoint by reading each table's change log (stream/stream-reader.ts, the
 * log sync and the Streams API read) shard by shard, from a durable cursor (forward-cursor.ts).
 *
 * Per table: logging is switched on the first time (stream/enable-sync.ts; the items already held
 * are logged once, so the endpoint receives the whole table), then the endpoint table is created
 * or its key schema checked (endpoint-tables.ts; a mismatch is reported in status and the table is
 * left alone). Per shard: up to `batchSize` records after the cursor are written
 * (write-records.ts) and the cursor moves to the last of them only after the endpoint acknowledged
 * every one. A child shard (after a partition split) waits until its parent is closed and fully
 * forwarded, so a key's versions reach the endpoint in order. A crash replays at most the batches
 * in flight; replayed records are refused by the version condition or rewrite the same version.
 *
 * Errors (classify-error.ts): throttling, 5xx, network and setup errors (credentials, permissions)
 * are retried with back-off, holding the shard back, visibly. A record the endpoint refuses for
 * good (ValidationException, SerializationException, another 4xx) is written to the hub's dead
 * letters (forward-dead-letters.ts) and the cursor moves past it, so one poison record never
 * stops a shard, nor the pruning of the hub log behind it.
 *
 * Credentials: without explicit ones the AWS SDK's default chain is resolved once at start; when
 * it finds none the forwarder does not start (status().refused, logged once) instead of failing
 * every request. checkForwardCredentials runs the same check for the CLI before the hub starts.
 *
 * Never throws into the hub: a failing pass is counted, reported (lastError) and retried after a
 * back-off.
 */
import type { Edgetable } from '../../edgetable.js';
import { decodeStreamRecord, type ChangeRecord, type LogShard, type ReplicaTable, type TableLag } from '../../replication/replica-types.js';
import { log } from '../../log/logger.js';
import { backoffMs, pause } from './backoff.js';
import { deadLetterRefusals } from './forward-dead-letters.js';
import { createEndpointClient, isMissingSdk, missingSdkMessage, type EndpointClient } from './endpoint-client.js';
import type { EndpointCredentials } from './endpoint-credentials.js';
import { ensureEndpointTable } from './endpoint-tables.js';
import { writeRecords, type WriteCounters } from './write-records.js';
import type { ForwardRecord, WriteMode } from './forward-types.js';

export type ForwardOptions = {
  /** The endpoint, e.g. https://dynamodb.eu-west-1.amazonaws.com or a local DynamoDB-compatible server. */
  readonly endpoint: string;
  /** Default 'us-east-1'. */
  readonly region?: string;
  /** Default: the AWS SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles...). */
  readonly credentials?: EndpointCredentials;
  /** Hub tables to forward; default every table but the dead letters. */
  readonly tables?: readonly string[];
  /** Change records read per shard per step (one cursor commit each). Default 100. */
  readonly batchSize?: number;
  /** Default 'conditional' (write-records.ts). */
  readonly writeMode?: WriteMode;
  /** Conditional writes in flight at once. Default 8. */
  readonly concurrency?: number;
  /** Wait between passes that found nothing to forward. Default 200 ms. */
  readonly pollMs?: number;
  /** Back-off base and ceiling for retries. Defaults 50 ms and 5,000 ms. */
  readonly baseBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /**
   * Replaces the AWS SDK client (tests inject faults through it). Internal: the published types
   * do not reach the SDK's, which a store-only install does not have.
   * @internal
   */
  readonly client?: EndpointClient;
};

export type ForwardTableState = { readonly table: string; readonly state: 'pending' | 'forwarding' | 'mismatch'; readonly message?: string };

export type ForwardStatus = {
  readonly endpoint: string;
  /** Items written or deleted at the endpoint. */
  readonly forwarded: number;
  /** Writes refused because the endpoint already held the same or a newer version. */
  readonly conditionalSkips: number;
  readonly retries: number;
  readonly throttled: number;
  readonly unprocessedItems: number;
  readonly errors: number;
  /** Records the endpoint refused for good (a permanent error), and of them those kept in the dead letters. */
  readonly permanentFailures: number;
  readonly deadLettered: number;
  /** Records pruned from the hub log (its size cap, replication/hub-log.ts) before they were forwarded. */
  readonly missedRecords: number;
  readonly lastError?: string;
  /** Set when the forwarder did not start: why (no credentials). */
  readonly refused?: string;
  /** Change records of the forwarded tables not yet acknowledged by the endpoint. */
  readonly lagRecords: number;
  /** Age of the oldest of them, ms (0 when there is none). */
  readonly oldestUnforwardedAgeMs: number;
  /** The same two figures per forwarded table. */
  readonly lag: readonly ForwardTableLag[];
  readonly tables: readonly ForwardTableState[];
};

export type ForwardTableLag = { readonly table: string; readonly records: number; readonly oldestUnforwardedAgeMs: number };

/** The refusal's text: what is missing and how to give it. */
export function missingCredentialsMessage(endpoint: string, cause: unknown): string {
  return (
    `forwarding to ${endpoint} needs AWS credentials and the AWS SDK's default chain found none (${(cause as Error).message}): ` +
    'pass --forward-access-key-id and --forward-secret-access-key-file (forward.credentials), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or an AWS profile; ' +
    'a local endpoint (dynalite, DynamoDB Local) accepts any values'
  );
}

/**
 * Undefined when requests to the endpoint can be signed, else the refusal's message. Only
 * CredentialsProviderError is a refusal: a chain that cannot be asked (no network) is left to
 * the forwarder's retries.
 */
export async function checkForwardCredentials(options: Pick<ForwardOptions, 'endpoint' | 'region' | 'credentials'>): Promise<string | undefined> {
  const missing = await missingSdkMessage();
  if (missing) return missing;
  if (options.credentials) return undefined;
  const client = createEndpointClient({ endpoint: options.endpoint, region: options.region ?? 'us-east-1' });
  try {
    await client.checkCredentials?.();
    return undefined;
  } catch (err) {
    return (err as Error).name === 'CredentialsProviderError' ? missingCredentialsMessage(options.endpoint, err) : undefined;
  } finally {
    client.destroy();
  }
}

export type Forwarder = { status(): ForwardStatus; stop(): Promise<void> };


export function startForwarder(db: Edgetable, options: ForwardOptions): Forwarder {
  const replica = db.replica;
  const endpoint = options.endpoint;
  const abort = new AbortController();
  const client =
    options.client ??
    createEndpointClient({ endpoint, region: options.region ?? 'us-east-1', signal: abort.signal, ...(options.credentials ? { credentials: options.credentials } : {}) });
  const batchSize = options.batchSize ?? 100;
  const pollMs = options.pollMs ?? 200;
  const baseBackoffMs = options.baseBackoffMs ?? 50;
  const maxBackoffMs = options.maxBackoffMs ?? 5_000;
  const counters: WriteCounters & { deadLettered: number; missedRecords: number } = {
    forwarded: 0,
    conditionalSkips: 0,
    retries: 0,
    throttled: 0,
    unprocessedItems: 0,
    errors: 0,
    permanentFailures: 0,
    deadLettered: 0,
    missedRecords: 0,
  };
  let refused: string | undefined;
  const states = new Map<string, ForwardTableState>();
  const writing = { client, mode: options.writeMode ?? 'conditional', concurrency: options.concurrency ?? 8, baseBackoffMs, maxBackoffMs, counters, signal: abort.signal } as const;

  const tablesToForward = (): ReplicaTable[] => {
    const all = replica.tables();
    return options.tables ? all.filter((t) => options.tables!.includes(t.name)) : all;
  };

  /** Logging on, endpoint table created or checked; false while the table cannot be forwarded. */
  const prepare = async (table: ReplicaTable): Promise<boolean> => {
    const state = states.get(table.name)?.state;
    if (state === 'forwarding') return true;
    if (state === 'mismatch') return false;
    states.set(table.name, { table: table.name, state: 'pending' });
    replica.logChanges(table.name);
    const check = await ensureEndpointTable(client, table.def, abort.signal);
    states.set(table.name, check.ok ? { table: table.name, state: 'forwarding' } : { table: table.name, state: 'mismatch', message: check.mismatch });
    return check.ok;
  };

  /** Forwards one batch of one shard; returns whether there was anything to forward. */
  const step = async (table: ReplicaTable, shard: LogShard, done: ReadonlySet<number>): Promise<boolean> => {
    if (shard.parent !== undefined && !done.has(shard.parent)) return false;
    const cursor = replica.readCursor(endpoint, table.name, shard.shard);
    const raw = replica.readChanges(table.name, shard.shard, cursor + 1, batchSize);
    if (raw.length === 0) return false;
    // Nothing goes out that a power cut could take back (durability 'interval' or 'relaxed'): the
    // records read are flushed first, or a lost record's sequence number, reused, would be skipped.
    if (replica.unflushed) await replica.flush();
    if (raw[0]!.seq > cursor + 1) {
      // The hub log's size cap pruned records this forwarder had not read (replication/hub-log.ts): said, not hidden.
      const missed = raw[0]!.seq - cursor - 1;
      counters.missedRecords += missed;
      counters.lastError = `${missed} records of ${table.name} shard ${shard.shard} were pruned from the hub log before they were forwarded`;
      log('hub').warn({ table: table.name, shard: shard.shard, missed }, counters.lastError);
    }
    const records: ForwardRecord[] = [];
    for (const { seq, bytes } of raw) {
      const r = decodeStreamRecord(bytes);
      // A version-only record (change-record.ts) changed no item at the hub: nothing to forward.
      if (r.kind === 'change' && !r.versionOnly) records.push({ keyId: replica.keyId(table.name, r.keys), seq, record: r as ChangeRecord });
    }
    const refusals = await writeRecords(writing, table.name, records);
    if (abort.signal.aborted) return false; // not every record was acknowledged: the cursor stays
    if (refusals.length > 0) {
      await deadLetterRefusals(db, endpoint, table.name, shard.shard, refusals, Date.now());
      counters.deadLettered += refusals.length;
      for (const r of refusals) log('hub').warn({ table: table.name, shard: shard.shard, seq: r.seq }, `dead-lettered ${table.name} shard ${shard.shard} record ${r.seq}: ${r.reason}`);
    }
    await replica.writeCursor(endpoint, table.name, shard.shard, raw[raw.length - 1]!.seq);
    return true;
  };

  /** Shards whose records are all forwarded and that get no more (closed by a split). */
  const finishedShards = (table: ReplicaTable, shards: readonly LogShard[]): Set<number> => {
    const ids = new Set(shards.map((s) => s.shard));
    const done = new Set<number>();
    for (const s of shards) {
      if (!s.open && replica.readCursor(endpoint, table.name, s.shard) >= s.lastSeq) done.add(s.shard);
    }
    // A parent whose header is gone has nothing left to forward.
    for (const s of shards) if (s.parent !== undefined && !ids.has(s.parent)) done.add(s.parent);
    return done;
  };

  const pass = async (): Promise<boolean> => {
    let worked = false;
    for (const table of tablesToForward()) {
      if (abort.signal.aborted || !(await prepare(table))) continue;
      const shards = replica.logShards(table.name);
      const done = finishedShards(table, shards);
      for (const shard of shards) {
        if (abort.signal.aborted) break;
        if (await step(table, shard, done)) worked = true;
      }
    }
    return worked;
  };

  /** False (and the forwarder refused, logged once) when the SDK's chain finds no credentials. */
  const mustCheckCredentials = !options.credentials && !options.client && client.checkCredentials !== undefined;
  const credentialsFound = async (): Promise<boolean> => {
    try {
      await client.checkCredentials!();
      return true;
    } catch (err) {
      const missingSdk = isMissingSdk(err);
      if ((err as Error).name !== 'CredentialsProviderError' && !missingSdk) return true; // anything else: the requests retry it
      if (abort.signal.aborted) return true;
      refused = missingSdk ? (err as Error).message : missingCredentialsMessage(endpoint, err);
      counters.lastError = refused;
      log('hub').error({ endpoint }, refused);
      return false;
    }
  };

  const run = async () => {
    // Checked only without explicit credentials; otherwise the first pass starts at once (logging switched on).
    if (mustCheckCredentials && !(await credentialsFound())) return;
    let failures = 0;
    while (!abort.signal.aborted) {
      try {
        const worked = await pass();
        failures = 0;
        if (!worked) await pause(pollMs, abort.signal);
      } catch (err) {
        if (abort.signal.aborted || !replica.open) break;
        counters.errors += 1;
        counters.lastError = `${(err as Error).name}: ${(err as Error).message}`;
        await pause(backoffMs(failures++, baseBackoffMs, maxBackoffMs), abort.signal);
      }
    }
  };
  const running = run();

  const lag = (): Pick<ForwardStatus, 'lagRecords' | 'oldestUnforwardedAgeMs' | 'lag'> => {
    let lags: TableLag[] = [];
    try {
      if (replica.open) lags = replica.forwardLag(endpoint, tablesToForward().map((t) => t.name));
    } catch {
      lags = []; // the store closing under a status() call
    }
    const now = Date.now();
    const age = (oldestMs: number | undefined) => (oldestMs === undefined ? 0 : Math.max(0, now - oldestMs));
    const perTable = lags.map((l) => ({ table: l.table, records: l.records, oldestUnforwardedAgeMs: age(l.oldestMs) }));
    return {
      lagRecords: perTable.reduce((n, l) => n + l.records, 0),
      oldestUnforwardedAgeMs: perTable.reduce((n, l) => Math.max(n, l.oldestUnforwardedAgeMs), 0),
      lag: perTable,
    };
  };

  return {
    status: () => ({
      endpoint,
      ...counters,
      ...(refused !== undefined ? { refused } : {}),
      ...lag(),
      tables: [...states.values()].sort((a, b) => a.table.localeCompare(b.table)),
    }),
    stop: async () => {
      abort.abort();
      await running;
      if (!options.client) client.destroy();
    },
  };
}
