/**
 * The request-limit flags of the commands that serve the DynamoDB API (`serve`, `hub --port`):
 * connections, body bytes, and timeouts in seconds (server/request-limits.ts has the defaults and
 * docs/security.md, "Request limits", what each defends against). Checked at start, so a limit
 * that cannot work is a usage error naming its flag rather than a failure of the running server.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_REQUEST_LIMITS, resolveRequestLimits, type RequestLimits } from '../server/request-limits.js';
import { positiveInteger } from './arguments.js';
import { UsageError } from './cli-io.js';

export type RequestLimitFlags = {
  maxConnections?: number;
  maxBodyBytes?: number;
  maxBodyBytesInFlight?: number;
  headersTimeout?: number;
  requestTimeout?: number;
  keepAliveTimeout?: number;
};

const d = DEFAULT_REQUEST_LIMITS;
const MiB = 1024 * 1024;

export function addRequestLimitFlags(command: Command, what = 'the API'): Command {
  return command
    .option('--max-connections <n>', `open connections to ${what}; at the cap a new one replaces the longest-idle, or is refused with a 503 when all are busy (default ${d.maxConnections})`, positiveInteger)
    .option('--max-body-bytes <size>', `largest request body, e.g. 1048576 or 4MiB; at most DynamoDB's 16MiB (default ${d.maxBodyBytes / MiB}MiB)`, byteSize)
    .option('--max-body-bytes-in-flight <size>', `request body bytes held at once across all connections; past it requests are answered ThrottlingException unread (default ${d.maxBodyBytesInFlight / MiB}MiB)`, byteSize)
    .option('--headers-timeout <seconds>', `a request's headers must arrive within this (default ${d.headersTimeoutMs / 1000})`, seconds)
    .option('--request-timeout <seconds>', `a whole request, body included, must arrive within this (default ${d.requestTimeoutMs / 1000})`, seconds)
    .option('--keep-alive-timeout <seconds>', `idle kept-alive connections close after this (default ${d.keepAliveTimeoutMs / 1000})`, seconds);
}

/** The limits the flags give, checked together (a UsageError names what is wrong). */
export function requestLimits(flags: RequestLimitFlags): RequestLimits {
  const limits: RequestLimits = {
    ...(flags.maxConnections !== undefined ? { maxConnections: flags.maxConnections } : {}),
    ...(flags.maxBodyBytes !== undefined ? { maxBodyBytes: flags.maxBodyBytes } : {}),
    ...(flags.maxBodyBytesInFlight !== undefined ? { maxBodyBytesInFlight: flags.maxBodyBytesInFlight } : {}),
    ...(flags.headersTimeout !== undefined ? { headersTimeoutMs: flags.headersTimeout } : {}),
    ...(flags.requestTimeout !== undefined ? { requestTimeoutMs: flags.requestTimeout } : {}),
    ...(flags.keepAliveTimeout !== undefined ? { keepAliveTimeoutMs: flags.keepAliveTimeout } : {}),
  };
  const headersMs = limits.headersTimeoutMs ?? d.headersTimeoutMs;
  const requestMs = limits.requestTimeoutMs ?? d.requestTimeoutMs;
  if (headersMs > requestMs) throw new UsageError(`--headers-timeout (${headersMs / 1000} s) must not exceed --request-timeout (${requestMs / 1000} s)`);
  try {
    resolveRequestLimits(limits);
  } catch (err) {
    throw new UsageError(`request limits: ${flagNames((err as Error).message)}`);
  }
  return limits;
}

const UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: MiB };

/** `1048576`, `512KiB`, `4MiB` -> bytes. */
export function byteSize(value: string): number {
  const match = /^(\d+)\s*(b|kib|mib|)$/i.exec(value.trim());
  const bytes = match ? Number(match[1]) * UNITS[match[2]!.toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new InvalidArgumentError('expected a size in bytes, e.g. 1048576, 512KiB or 4MiB');
  return bytes;
}

/** Seconds (fractions allowed) -> whole milliseconds. */
export function seconds(value: string): number {
  const s = Number(value);
  const ms = Math.round(s * 1000);
  if (!Number.isFinite(s) || ms < 1) throw new InvalidArgumentError('expected a positive number of seconds');
  return ms;
}

/** The server's option names in a message, as the flags a user typed. */
function flagNames(message: string): string {
  const names: Readonly<Record<string, string>> = {
    maxConnections: '--max-connections',
    maxBodyBytesInFlight: '--max-body-bytes-in-flight',
    maxBodyBytes: '--max-body-bytes',
    headersTimeoutMs: '--headers-timeout',
    requestTimeoutMs: '--request-timeout',
    keepAliveTimeoutMs: '--keep-alive-timeout',
  };
  return message.replace(/\b(maxConnections|maxBodyBytesInFlight|maxBodyBytes|headersTimeoutMs|requestTimeoutMs|keepAliveTimeoutMs)\b/g, (n) => names[n]!);
}
