/**
 * Reads a request body while counting: the limit is enforced as bytes arrive, so an oversized
 * body is refused after at most `maxBytes` are held, never buffered whole. A declared
 * Content-Length over the limit is refused before reading anything.
 *
 * `hold` is the request's reservation in the server's in-flight budget (body-budget.ts), made by
 * the caller from the declared length before reading (who also releases it); bytes beyond it (a
 * chunked body) are reserved as they arrive, and a chunk that does not fit ends the read with
 * 'over-budget'.
 */
import type { IncomingMessage } from 'node:http';
import type { BodyHold } from './body-budget.js';

export type BodyResult = { kind: 'ok'; body: Buffer } | { kind: 'too-large' } | { kind: 'over-budget' } | { kind: 'aborted' };

/** The request's Content-Length, or undefined when it has none (a chunked body). */
export function declaredLength(req: IncomingMessage): number | undefined {
  const declared = Number(req.headers['content-length']);
  return req.headers['content-length'] !== undefined && Number.isFinite(declared) ? declared : undefined;
}

export function readBody(req: IncomingMessage, maxBytes: number, hold?: BodyHold): Promise<BodyResult> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > maxBytes) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        chunks.length = 0;
        settle({ kind: 'too-large' });
        return;
      }
      if (hold && total > hold.bytes && !hold.grow(total - hold.bytes)) {
        chunks.length = 0;
        settle({ kind: 'over-budget' });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle({ kind: 'ok', body: Buffer.concat(chunks, total) }));
    req.once('aborted', () => settle({ kind: 'aborted' }));
    req.once('error', () => settle({ kind: 'aborted' }));
    req.once('close', () => settle({ kind: 'aborted' }));
  });
}
