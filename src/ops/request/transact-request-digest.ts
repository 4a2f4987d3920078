/**
 * The digest a ClientRequestToken is stored with (ops/transact/transact-client-tokens.ts): SHA-256
 * of the request in canonical JSON (keys sorted at every level: DynamoDB ignores member order),
 * without the members that change nothing written (the token itself and the two response
 * options). The same token with another digest is an IdempotentParameterMismatchException.
 */
import { createHash } from 'node:crypto';

export function requestDigest(request: Readonly<Record<string, unknown>>): Uint8Array {
  const { ClientRequestToken: _t, ReturnConsumedCapacity: _c, ReturnItemCollectionMetrics: _m, ...rest } = request;
  return new Uint8Array(createHash('sha256').update(canonicalJson(rest)).digest());
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
