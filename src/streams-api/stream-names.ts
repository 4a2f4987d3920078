/**
 * The names the Streams API hands out and takes back: stream ARNs, shard ids and sequence numbers.
 *
 *   StreamArn      := TableArn "/stream/" StreamLabel
 *                     (TableArn = "arn:aws:dynamodb:" region ":" account ":table/" TableName;
 *                      StreamLabel = the ISO-8601 enable time in ms, UTC, without "Z")
 *   ShardId        := "shardId-" shard:20 digits "-" labelDigest:8 hex
 *                     (shard = the change-log shard, i.e. the partition id)
 *   SequenceNumber := seq:21 digits, zero-padded (the change record's key in its shard)
 *
 * Sequence numbers order records within one shard only, as DynamoDB's do.
 */
import { createHash } from 'node:crypto';

const ARN_PATTERN = /^arn:aws:dynamodb:([^:]*):([^:]*):table\/([a-zA-Z0-9_.-]{3,255})\/stream\/(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})$/;
const SHARD_PATTERN = /^shardId-(\d{20})-([0-9a-f]{8})$/;
const SEQUENCE_PATTERN = /^\d{1,40}$/;

export type ParsedStreamArn = { readonly region: string; readonly tableName: string; readonly label: string };

export function streamArn(tableArn: string, label: string): string {
  return `${tableArn}/stream/${label}`;
}

export function parseStreamArn(arn: string): ParsedStreamArn | undefined {
  const m = ARN_PATTERN.exec(arn);
  return m ? { region: m[1]!, tableName: m[3]!, label: m[4]! } : undefined;
}

/** The enable time a stream label names, epoch ms. */
export function labelTimeMs(label: string): number {
  return Date.parse(`${label}Z`);
}

export function shardIdOf(shard: number, label: string): string {
  return `shardId-${String(shard).padStart(20, '0')}-${labelDigest(label)}`;
}

/** The shard number a shard id names, or undefined when it is malformed or of another stream. */
export function parseShardId(id: string, label: string): number | undefined {
  const m = SHARD_PATTERN.exec(id);
  if (!m || m[2] !== labelDigest(label)) return undefined;
  const shard = Number(m[1]);
  return Number.isSafeInteger(shard) ? shard : undefined;
}

export function formatSequenceNumber(seq: number): string {
  return String(seq).padStart(21, '0');
}

/** The sequence a SequenceNumber names, or undefined when it is not one. */
export function parseSequenceNumber(s: string): number | undefined {
  if (!SEQUENCE_PATTERN.test(s)) return undefined;
  const seq = Number(s);
  return Number.isSafeInteger(seq) ? seq : undefined;
}

function labelDigest(label: string): string {
  return createHash('sha256').update(label).digest('hex').slice(0, 8);
}
