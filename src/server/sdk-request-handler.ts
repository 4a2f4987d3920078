/**
 * An in-process AWS SDK v3 request handler: `new DynamoDBClient({ ..., requestHandler })` sends
 * its requests straight into an Edgetable through handleDynamoRequest, the function behind the
 * HTTP server, so both paths answer identically and no socket is opened. It implements smithy's
 * HttpHandler structurally (handle / updateHttpClientConfig / httpHandlerConfigs), so no smithy
 * package is imported. The response body is a Uint8Array, which the SDK's collectBody accepts
 * as it is.
 */
import type { Edgetable } from '../edgetable.js';
import { handleDynamoRequest, type DynamoRequestOptions } from './dynamo-request.js';

/** The parts of smithy's HttpRequest this handler reads. */
export type SdkHttpRequest = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
};

export type SdkHttpResponse = {
  statusCode: number;
  reason?: string;
  headers: Record<string, string>;
  body: Uint8Array;
};

export type EdgetableRequestHandler = {
  readonly metadata: { handlerProtocol: string };
  handle(request: SdkHttpRequest, options?: { abortSignal?: { aborted: boolean } }): Promise<{ response: SdkHttpResponse }>;
  updateHttpClientConfig(key: never, value: never): void;
  httpHandlerConfigs(): Record<string, never>;
  destroy(): void;
};

export function createRequestHandler(db: Edgetable, options: DynamoRequestOptions = {}): EdgetableRequestHandler {
  return {
    metadata: { handlerProtocol: 'http/1.1' },
    async handle(request, handlerOptions) {
      if (handlerOptions?.abortSignal?.aborted) {
        const error = new Error('Request aborted');
        error.name = 'AbortError';
        throw error;
      }
      const body = await bodyBytes(request.body);
      const response = handleDynamoRequest(
        db,
        { method: request.method, path: request.path || '/', headers: lowerCaseHeaders(request.headers), body },
        options,
      );
      return {
        response: {
          statusCode: response.statusCode,
          headers: { ...response.headers },
          body: new Uint8Array(response.body.buffer, response.body.byteOffset, response.body.byteLength),
        },
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}

function lowerCaseHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** The SDK serializes JSON bodies to strings; Uint8Arrays and async-iterable streams also work. */
async function bodyBytes(body: unknown): Promise<Uint8Array> {
  if (body === undefined || body === null) return new Uint8Array(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (typeof body === 'object' && Symbol.asyncIterator in body) {
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<Uint8Array | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    return Buffer.concat(chunks);
  }
  throw new TypeError(`Unsupported request body type: ${Object.prototype.toString.call(body)}`);
}
