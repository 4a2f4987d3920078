/**
 * The DynamoDB HTTP API on node:http (the only importer of node:http). Every request goes through
 * handleDynamoRequest, the function the SDK adapter also uses. Connections are kept alive between
 * requests; close() stops accepting, lets requests in flight finish (their responses then carry
 * `Connection: close`), drops idle connections and resolves when the last one has gone.
 *
 * Group commit (default on): every request runs through db.promises (ops/commit-queue.ts), so
 * writes that arrive together share one txn and one flush, the flush runs off the event loop, and
 * each response is sent once its write is durable. Reads are answered at once.
 * SigV4 (default off, sigv4.ts): with `auth.credentials`, unsigned or badly signed requests get
 * DynamoDB's authentication errors. Every such refusal is counted in /metrics and logged, at most
 * a line per interval (refusal-log.ts).
 * Request limits (request-limits.ts): a cap on open connections (connection-gate.ts), on one
 * body and on the bodies held at once (body-budget.ts), and node's header, request and keep-alive
 * timeouts, so slow or hostile clients cost bounded memory and time.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Edgetable } from '../edgetable.js';
import { bodyTooLargeResponse, operationResponse, parseDynamoRequest, type DynamoRequestOptions, type OperationOutcome } from './dynamo-request.js';
import type { CommitQueueOptions, CommitQueueStats } from '../ops/commit-queue.js';
import { isOperationName } from '../ops/operations.js';
import type { SigV4Options } from './sigv4.js';
import { errorResponse } from './error-types.js';
import { declaredLength, readBody } from './read-body.js';
import { resolveRequestLimits, type RequestLimits } from './request-limits.js';
import { BodyBudget, type BodyBudgetStats, type BodyHold } from './body-budget.js';
import { ConnectionGate, type ConnectionGateStats } from './connection-gate.js';
import { bodyBudgetExceededResponse, connectionsFullResponse } from './limit-responses.js';
import { reportLimits } from './limit-report.js';
import type { EdgetableMetrics } from '../metrics/metrics.js';
import { isLogged, log } from '../log/logger.js';
import { sendMetrics } from './metrics-server.js';
import { createRefusalLog } from './refusal-log.js';
import { jsonResponse, type WireResponse } from './wire-response.js';

/** Request limits (maxConnections, maxBodyBytes, timeouts, ...): request-limits.ts has them and their defaults. */
export type ServerOptions = RequestLimits & {
  db: Edgetable;
  /** 0 picks a free port; the chosen one is in the result. */
  port: number;
  host?: string;
  /** Errors answered with a 500; default writes one line to stderr. */
  onInternalError?: (error: unknown) => void;
  /** close() force-closes connections still open after this long. Default 10,000 ms. */
  closeTimeoutMs?: number;
  /** Share one commit among item writes that arrive together; false = one commit per request. Default on. */
  groupCommit?: CommitQueueOptions | false;
  /** Verify SigV4 signatures against these credentials. Default: no verification (as DynamoDB Local). */
  auth?: SigV4Options;
  /** Refusals are logged at most once per this many ms, the rest summed up (refusal-log.ts). Default 10,000. */
  refusalLogIntervalMs?: number;
  /** Answers GET /metrics and counts requests. Default: metrics of `db`; false: no /metrics. */
  metrics?: EdgetableMetrics | false;
  /** How often what the request limits refused is logged (one warning, when anything was). Default 10 s. */
  limitReportMs?: number;
};

export type RunningServer = {
  readonly port: number;
  readonly host: string;
  /** Group commit counters; undefined when group commit is off. */
  groupCommitStats(): CommitQueueStats | undefined;
  /** What the request limits see now and have refused so far. */
  limitStats(): { connections: ConnectionGateStats; bodies: BodyBudgetStats };
  close(): Promise<void>;
};

const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { db } = options;
  const host = options.host ?? '127.0.0.1';
  const limits = resolveRequestLimits(options);
  const { maxBodyBytes } = limits;
  const budget = new BodyBudget(limits.maxBodyBytesInFlight);
  const gate = new ConnectionGate(limits.maxConnections, () => connectionsFullResponse(limits.maxConnections));
  const onInternalError = options.onInternalError ?? logInternalError;
  const protocol: DynamoRequestOptions = { maxBodyBytes, onInternalError, ...(options.auth ? { auth: options.auth } : {}) };
  const grouped = options.groupCommit !== false;
  if (options.groupCommit) db.promises.configure(options.groupCommit);
  // prom-client is loaded only by a server that answers /metrics.
  const metrics = options.metrics === false ? undefined : (options.metrics ?? (await import('../metrics/metrics.js')).createMetrics({ db }));
  const refusals = createRefusalLog(options.refusalLogIntervalMs !== undefined ? { intervalMs: options.refusalLogIntervalMs } : {});
  let closing = false;

  const send = (res: ServerResponse, response: WireResponse, close = false): void => {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string> = { ...response.headers };
    if (close || closing) headers['connection'] = 'close';
    res.writeHead(response.statusCode, headers);
    res.end(response.body);
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (metrics && req.method === 'GET' && pathOf(req.url) === '/metrics') return sendMetrics(res, metrics);
    const declared = declaredLength(req);
    // Reserved before a byte of the body is read, given back once the request is answered. A
    // declared length over maxBodyBytes reserves nothing: readBody refuses it unread.
    let hold: BodyHold | undefined;
    if (declared === undefined || declared <= maxBodyBytes) {
      hold = budget.reserve(declared ?? 0);
      if (hold === undefined) return refuseOverBudget(res);
    }
    try {
      await answer(req, res, hold);
    } finally {
      hold?.release();
    }
  };

  // Answered without reading the body: the connection is destroyed once the answer is written,
  // before node would read (and drop) the rest of the body to find the next request.
  const refuseOverBudget = (res: ServerResponse): void => {
    budget.refused();
    res.once('finish', () => res.socket?.destroy());
    send(res, bodyBudgetExceededResponse(limits.maxBodyBytesInFlight), true);
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, hold: BodyHold | undefined): Promise<void> => {
    const result = await readBody(req, maxBodyBytes, hold);
    if (result.kind === 'aborted') return;
    if (result.kind === 'over-budget') return refuseOverBudget(res);
    if (result.kind === 'too-large') {
      // Discard what is still arriving so the client can read the answer; the socket closes after.
      req.resume();
      send(res, bodyTooLargeResponse(maxBodyBytes, req.headers['content-type']), true);
      return;
    }
    const parsed = parseDynamoRequest(
      { method: req.method ?? 'GET', path: pathOf(req.url), query: queryOf(req.url), headers: flatHeaders(req), body: result.body },
      protocol,
    );
    if (parsed.kind === 'response') {
      if (parsed.refused) {
        const { name, operation, keyId } = parsed.refused;
        metrics?.refuse(name);
        refusals.refuse({ reason: name, operation, ...(keyId !== undefined ? { keyId } : {}), ...(req.socket.remoteAddress ? { from: req.socket.remoteAddress } : {}) });
      }
      send(res, parsed.response);
      return;
    }
    const started = process.hrtime.bigint();
    let outcome: OperationOutcome;
    // DynamoDB's own operations go through db.promises; Streams and PartiQL ones run directly.
    if (grouped && isOperationName(parsed.operation)) {
      outcome = await db.promises.execute(parsed.operation, parsed.body).then(
        (response): OperationOutcome => ({ ok: true, response }),
        (error: unknown): OperationOutcome => ({ ok: false, error }),
      );
    } else {
      try {
        outcome = { ok: true, response: db.execute(parsed.operation, parsed.body) };
      } catch (error) {
        outcome = { ok: false, error };
      }
    }
    const response = operationResponse(outcome, parsed.contentType, protocol);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    metrics?.record(parsed.operation, outcomeName(outcome), seconds);
    if (isLogged('debug')) logRequest(parsed.operation, parsed.body, outcome, seconds);
    send(res, response);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (gate.isRefused(req.socket)) return; // answered 503 at accept; the socket is closing
    gate.requestStarted(req.socket);
    res.once('close', () => gate.requestEnded(req.socket));
    onRequest(req, res).catch((error: unknown) => {
      onInternalError(error);
      const r = errorResponse(error);
      if (!res.headersSent) send(res, jsonResponse(r.statusCode, r.body), true);
      else res.destroy();
    });
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often node checks both timeouts; its default, 30 s, would let a client overstay them by that much.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(limits.headersTimeoutMs / 4)),
    },
    handle,
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = gate.hardLimit;
  server.on('connection', (socket: Socket) => gate.admit(socket));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const limitStats = () => ({ connections: gate.stats(), bodies: budget.stats() });
  const stopReports = reportLimits(limitStats, options.limitReportMs);

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      stopReports();
      if (grouped) db.promises.flush(); // queued writes commit now rather than after their window
      const timer = setTimeout(() => server.closeAllConnections(), options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        refusals.close();
        resolve();
      });
      server.closeIdleConnections();
    });
    return closed;
  };
  return {
    port,
    host,
    close,
    groupCommitStats: () => (grouped ? db.promises.stats() : undefined),
    limitStats,
  };
}

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0]!;
  return path === '' ? '/' : path;
}

function queryOf(url: string | undefined): string {
  const at = (url ?? '').indexOf('?');
  return at < 0 ? '' : (url ?? '').slice(at + 1);
}

/** Node joins repeated headers itself except a few; the protocol reads single-valued ones only. */
function flatHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * The per-request line, at debug only (log/logger.ts: nothing per request at info):
 *   {"level":"debug",...,"component":"server","operation":"Query","table":"Readings","outcome":"success","ms":0.41,"msg":"Query Readings: success"}
 * `table` is absent for operations without a TableName (ListTables, PartiQL, BatchWriteItem).
 */
function logRequest(operation: string, body: unknown, outcome: OperationOutcome, seconds: number): void {
  const table = typeof body === 'object' && body !== null && typeof (body as { TableName?: unknown }).TableName === 'string' ? (body as { TableName: string }).TableName : undefined;
  const result = outcomeName(outcome);
  const ms = Math.round(seconds * 1e5) / 100;
  log('server').debug({ operation, ...(table !== undefined ? { table } : {}), outcome: result, ms }, `${operation}${table !== undefined ? ` ${table}` : ''}: ${result}`);
}

function logInternalError(error: unknown): void {
  log('server').error({ err: error }, 'internal error answered with a 500');
}

/** `success`, or the error's DynamoDB name (`ValidationException`), as the response's `__type` has it. */
function outcomeName(outcome: OperationOutcome): string {
  if (outcome.ok) return 'success';
  const type = errorResponse(outcome.error).body.__type;
  return type.slice(type.lastIndexOf('#') + 1);
}
