/** A minimal HTTP client for protocol tests: exact bytes in, status, headers and bytes out. */
import { request, type Agent, type ClientRequest, type IncomingHttpHeaders } from 'node:http';

export type RawResponse = { status: number; headers: IncomingHttpHeaders; body: Buffer; text: string; reusedSocket: boolean };

export type RawRequest = {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  agent?: Agent;
  /** Writes the body itself (chunked unless a content-length header is set) and ends the request when it chooses. */
  stream?: (req: ClientRequest) => void;
};

export function send(port: number, r: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: r.method ?? 'POST', path: r.path ?? '/', headers: r.headers, agent: r.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8'), reusedSocket: req.reusedSocket });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (r.stream) r.stream(req);
    else req.end(r.body);
  });
}

/**
 * An Authorization header of the right form (its signature is checked only when the server
 * verifies signatures) and its date, as every DynamoDB request carries.
 */
export const AUTH_HEADERS: Readonly<Record<string, string>> = {
  'x-amz-date': '20260101T000000Z',
  authorization: 'AWS4-HMAC-SHA256 Credential=edge/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00',
};

/** A DynamoDB JSON 1.0 call. */
export function call(port: number, operation: string, body: unknown, extra: Partial<RawRequest> = {}): Promise<RawResponse> {
  return send(port, {
    ...extra,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${operation}`, ...AUTH_HEADERS, ...extra.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Bitwise CRC-32 (IEEE, reflected 0xEDB88320): an oracle independent of the server's table-driven or native one. */
export function crc32Oracle(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
