/**
 * The DynamoDB HTTP API on node:http (the only importer of node:http). Every request goes through
 * handleDynamoRequest, the function the SDK adapter also uses. Connections are kept alive between
 * requests; close() stops accepting, lets requests in flight finish (their responses then carry
 * `Connection: close`), drops idle connections and resolves when the last one has gone.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Edgetable } from '../edgetable.js';
import { MAX_REQUEST_BODY_BYTES } from '../model/limits.js';
import { bodyTooLargeResponse, handleDynamoRequest } from './dynamo-request.js';
import { errorResponse } from './error-types.js';
import { readBody } from './read-body.js';
import { jsonResponse, type WireResponse } from './wire-response.js';

export type ServerOptions = {
  db: Edgetable;
  /** 0 picks a free port; the chosen one is in the result. */
  port: number;
  host?: string;
  maxBodyBytes?: number;
  /** Errors answered with a 500; default writes one line to stderr. */
  onInternalError?: (error: unknown) => void;
  /** Idle keep-alive connections close after this long. Default 5,000 ms (node's). */
  keepAliveTimeoutMs?: number;
  /** close() force-closes connections still open after this long. Default 10,000 ms. */
  closeTimeoutMs?: number;
};

export type RunningServer = {
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
};

const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { db } = options;
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const onInternalError = options.onInternalError ?? logInternalError;
  let closing = false;

  const send = (res: ServerResponse, response: WireResponse, close = false): void => {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string> = { ...response.headers };
    if (close || closing) headers['connection'] = 'close';
    res.writeHead(response.statusCode, headers);
    res.end(response.body);
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const result = await readBody(req, maxBodyBytes);
    if (result.kind === 'aborted') return;
    if (result.kind === 'too-large') {
      // Discard what is still arriving so the client can read the answer; the socket closes after.
      req.resume();
      send(res, bodyTooLargeResponse(maxBodyBytes, req.headers['content-type']), true);
      return;
    }
    const response = handleDynamoRequest(
      db,
      { method: req.method ?? 'GET', path: pathOf(req.url), headers: flatHeaders(req), body: result.body },
      { maxBodyBytes, onInternalError },
    );
    send(res, response);
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      onInternalError(error);
      const r = errorResponse(error);
      if (!res.headersSent) send(res, jsonResponse(r.statusCode, r.body), true);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      const timer = setTimeout(() => server.closeAllConnections(), options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      server.closeIdleConnections();
    });
    return closed;
  };
  return { port, host, close };
}

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0]!;
  return path === '' ? '/' : path;
}

/** Node joins repeated headers itself except a few; the protocol reads single-valued ones only. */
function flatHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function logInternalError(error: unknown): void {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`edgetable server: internal error: ${text}\n`);
}
