/**
 * ClientRequestToken bookkeeping for TransactWriteItems (spec §6.7): a token seen with the same
 * request within CLIENT_REQUEST_TOKEN_TTL_MS of the first completion replays as a success without
 * re-applying; the same token with other parameters is an IdempotentParameterMismatchException.
 *
 * Tokens live in their own sub-database and are read, checked and recorded inside the SAME write
 * txn as the transaction they guard, so a crash can neither apply a transaction without its token
 * nor record a token for a transaction that did not commit.
 *
 * Byte format (format version 1), sub-database `_tokens`:
 *
 *   entry       = token-entry | expiry-entry
 *   token-entry = key: 0x00 token:utf8                          value: record
 *   expiry-entry= key: 0x01 completedAtMs:u64be token:utf8      value: (empty)
 *   record      = version:u8 (= 1) completedAtMs:u64be digest:32B replay:utf8
 *   digest      = SHA-256 of the canonical request (ops/request/transact-request-digest.ts)
 *   replay      = JSON [[TableName, readUnits], ...]: the capacity a replay reports
 *
 * The expiry entries sort oldest first, so pruning walks from the front and stops at the first
 * live token: O(expired) work, bounded per call by MAX_TOKENS_PRUNED_PER_WRITE.
 */
import { IdempotentParameterMismatchException } from '../../model/errors.js';
import { CLIENT_REQUEST_TOKEN_TTL_MS } from '../../model/limits.js';
import type { Database } from '../../storage/database.js';
import type { Store } from '../../storage/store.js';
import type { ReadTxn, WriteTxn } from '../../storage/txn.js';

/** Name of the tokens sub-database (to move into partition/database-names.ts with the lead). */
export const CLIENT_TOKENS_DB = '_tokens';
export const CLIENT_TOKEN_FORMAT_VERSION = 1;
/** Expired tokens removed per transaction: keeps the cost of a write bounded. */
export const MAX_TOKENS_PRUNED_PER_WRITE = 16;

/** DynamoDB's API reference text for the exception (the service sends no fixed message we know of). */
export const IDEMPOTENT_MISMATCH_MESSAGE =
  'DynamoDB rejected the request because you retried a request with a different payload but with an idempotent token that was already used.';

const TOKEN_TAG = 0x00;
const EXPIRY_TAG = 0x01;
const DIGEST_BYTES = 32;
const HEADER_BYTES = 1 + 8 + DIGEST_BYTES;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Per-table read units a replayed request reports, in request order of the tables. */
export type ReplayUnits = readonly (readonly [tableName: string, readUnits: number])[];

type TokenRecord = { completedAtMs: number; digest: Uint8Array; replay: ReplayUnits };

export class ClientTokens {
  private constructor(private readonly db: Database) {}

  /** Opens (creating on first use) the tokens database; call outside a txn or inside a write txn. */
  static open(store: Store): ClientTokens {
    return new ClientTokens(store.database(CLIENT_TOKENS_DB));
  }

  /**
   * The replay units when `token` completed with the same digest less than the TTL before `nowMs`;
   * undefined when the token is unknown or expired.
   * @throws IdempotentParameterMismatchException when a live token was used with another request
   */
  check(txn: ReadTxn, token: string, digest: Uint8Array, nowMs: number): ReplayUnits | undefined {
    const record = this.read(txn, token);
    if (!record || nowMs - record.completedAtMs >= CLIENT_REQUEST_TOKEN_TTL_MS) return undefined;
    if (!equalBytes(record.digest, digest)) throw new IdempotentParameterMismatchException(IDEMPOTENT_MISMATCH_MESSAGE);
    return record.replay;
  }

  /** Records `token` as completed at `nowMs`, replacing an expired record of the same token. */
  record(txn: WriteTxn, token: string, digest: Uint8Array, nowMs: number, replay: ReplayUnits): void {
    const previous = this.read(txn, token);
    if (previous) txn.delete(this.db, expiryKey(previous.completedAtMs, token));
    const json = encoder.encode(JSON.stringify(replay));
    const value = new Uint8Array(HEADER_BYTES + json.length);
    value[0] = CLIENT_TOKEN_FORMAT_VERSION;
    new DataView(value.buffer).setBigUint64(1, BigInt(Math.floor(nowMs)));
    value.set(digest, 9);
    value.set(json, HEADER_BYTES);
    txn.put(this.db, tokenKey(token), value);
    txn.put(this.db, expiryKey(nowMs, token), new Uint8Array(0));
  }

  /** Deletes up to `max` tokens whose window closed before `nowMs`; returns how many. */
  prune(txn: WriteTxn, nowMs: number, max = MAX_TOKENS_PRUNED_PER_WRITE): number {
    const cutoff = Math.floor(nowMs) - CLIENT_REQUEST_TOKEN_TTL_MS;
    const expired: Uint8Array[] = [];
    for (const { key } of txn.cursor(this.db, { start: new Uint8Array([EXPIRY_TAG]), limit: max })) {
      if (key[0] !== EXPIRY_TAG) break;
      const completedAt = Number(new DataView(key.buffer, key.byteOffset, key.byteLength).getBigUint64(1));
      if (completedAt > cutoff) break;
      expired.push(key);
    }
    for (const key of expired) {
      txn.delete(this.db, key);
      txn.delete(this.db, Uint8Array.of(TOKEN_TAG, ...key.subarray(9)));
    }
    return expired.length;
  }

  private read(txn: ReadTxn, token: string): TokenRecord | undefined {
    const raw = txn.get(this.db, tokenKey(token));
    if (!raw) return undefined;
    if (raw[0] !== CLIENT_TOKEN_FORMAT_VERSION) return undefined; // unknown format: treat as expired
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    return {
      completedAtMs: Number(view.getBigUint64(1)),
      digest: raw.slice(9, HEADER_BYTES),
      replay: JSON.parse(decoder.decode(raw.subarray(HEADER_BYTES))) as ReplayUnits,
    };
  }
}

function tokenKey(token: string): Uint8Array {
  const bytes = encoder.encode(token);
  const key = new Uint8Array(1 + bytes.length);
  key[0] = TOKEN_TAG;
  key.set(bytes, 1);
  return key;
}

function expiryKey(completedAtMs: number, token: string): Uint8Array {
  const bytes = encoder.encode(token);
  const key = new Uint8Array(9 + bytes.length);
  key[0] = EXPIRY_TAG;
  new DataView(key.buffer).setBigUint64(1, BigInt(Math.floor(completedAtMs)));
  key.set(bytes, 9);
  return key;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
