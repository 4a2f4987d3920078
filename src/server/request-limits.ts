/**
 * What one HTTP listener lets its clients hold (docs/security.md, "Request limits"): open
 * connections, request body bytes (one request's, and all requests' together), and how long a
 * client may take to send its headers, its whole request, or to come back on a kept-alive
 * connection. A slow or hostile client then costs a bounded amount of memory and a bounded time,
 * whatever it sends. Defaults are sized for a device (64 MiB of anonymous memory for a busy
 * `serve`): one request at DynamoDB's 16 MiB ceiling fits, several do not.
 */
import { MAX_REQUEST_BODY_BYTES } from '../model/limits.js';

export type RequestLimits = {
  /** Open connections; at the cap a new one evicts the longest-idle connection, else it is refused with a 503. Default 128. */
  readonly maxConnections?: number;
  /** Largest request body; at most (and by default) DynamoDB's 16 MiB. Larger ones get a 413 before their body is read. */
  readonly maxBodyBytes?: number;
  /** Bytes of request bodies held at once across all connections (body-budget.ts). Default 24 MiB. */
  readonly maxBodyBytesInFlight?: number;
  /** A client must have sent a request's headers this long after it began (node's headersTimeout). Default 10 s. */
  readonly headersTimeoutMs?: number;
  /** ... and the whole request, body included, this long after it began (node's requestTimeout). Default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Idle keep-alive connections close after this long. Default 5 s (node's). */
  readonly keepAliveTimeoutMs?: number;
};

export type ResolvedRequestLimits = { readonly [K in keyof RequestLimits]-?: number };

export const DEFAULT_REQUEST_LIMITS: ResolvedRequestLimits = Object.freeze({
  maxConnections: 128,
  maxBodyBytes: MAX_REQUEST_BODY_BYTES,
  maxBodyBytesInFlight: 24 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
});

/**
 * Bodies larger than this are "large": together they may hold only LARGE_BODY_SHARE of the
 * in-flight budget, so a flood of big bodies always leaves room for ordinary requests (a
 * single-item write is at most 400 KB of item, well under 1 MiB of JSON).
 */
export const SMALL_BODY_BYTES = 1024 * 1024;
export const LARGE_BODY_SHARE = 0.75;

/** The limits with defaults filled in; throws RangeError naming the first option out of range. */
export function resolveRequestLimits(limits: RequestLimits = {}): ResolvedRequestLimits {
  const resolved: ResolvedRequestLimits = { ...DEFAULT_REQUEST_LIMITS, ...definedOnly(limits) };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, not ${value}`);
  }
  if (resolved.maxBodyBytes > MAX_REQUEST_BODY_BYTES) {
    throw new RangeError(`maxBodyBytes must be at most ${MAX_REQUEST_BODY_BYTES} (DynamoDB's 16 MiB request limit), not ${resolved.maxBodyBytes}`);
  }
  if (resolved.maxBodyBytes > SMALL_BODY_BYTES && resolved.maxBodyBytes > largeBodyBytesInFlight(resolved.maxBodyBytesInFlight)) {
    throw new RangeError(
      `maxBodyBytesInFlight (${resolved.maxBodyBytesInFlight}) must be at least 4/3 of maxBodyBytes (${resolved.maxBodyBytes}): ` +
        `bodies over ${SMALL_BODY_BYTES} bytes may hold only 3/4 of it, so that one request of the largest size can be received`,
    );
  }
  if (resolved.headersTimeoutMs > resolved.requestTimeoutMs) {
    throw new RangeError(`headersTimeoutMs (${resolved.headersTimeoutMs}) must not exceed requestTimeoutMs (${resolved.requestTimeoutMs})`);
  }
  return Object.freeze(resolved);
}

/** The part of the in-flight budget that bodies over SMALL_BODY_BYTES may hold together. */
export function largeBodyBytesInFlight(maxBodyBytesInFlight: number): number {
  return Math.floor(maxBodyBytesInFlight * LARGE_BODY_SHARE);
}

/** The limits named in `options` (which may carry other options too), without undefined ones. */
function definedOnly(options: RequestLimits): RequestLimits {
  const names = Object.keys(DEFAULT_REQUEST_LIMITS) as (keyof RequestLimits)[];
  return Object.fromEntries(names.filter((n) => options[n] !== undefined).map((n) => [n, options[n]])) as RequestLimits;
}
