/**
 * Reads a request body while counting: the limit is enforced as bytes arrive, so an oversized
 * body is refused after at most `maxBytes` are held, never buffered whole. A declared
 * Content-Length over the limit is refused before reading anything.
 */
import type { IncomingMessage } from 'node:http';

export type BodyResult = { kind: 'ok'; body: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ kind: 'too-large' });
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
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => settle({ kind: 'ok', body: Buffer.concat(chunks, total) }));
    req.once('aborted', () => settle({ kind: 'aborted' }));
    req.once('error', () => settle({ kind: 'aborted' }));
    req.once('close', () => settle({ kind: 'aborted' }));
  });
}
