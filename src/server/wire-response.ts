/**
 * The bytes and headers of every response, from either the HTTP server or the SDK adapter
 * (spec §8.2): `x-amz-crc32` is CRC-32 (IEEE) of the exact body bytes as an unsigned decimal, and
 * `x-amzn-RequestId` is a fresh 52-character upper-case alphanumeric id.
 */
import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import { crc32 as jsCrc32 } from '../codec/sensor-frame.js';

export type WireHeaders = Record<string, string>;

export type WireResponse = {
  readonly statusCode: number;
  readonly headers: WireHeaders;
  readonly body: Buffer;
};

export const JSON_CONTENT_TYPE = 'application/x-amz-json-1.0';

// zlib.crc32 exists from Node 20.15; older Node 20 releases fall back to the table-driven one.
const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

export function bodyCrc32(body: Uint8Array): number {
  return (nativeCrc32 ? nativeCrc32(body) : jsCrc32(body)) >>> 0;
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const REQUEST_ID_CHARS = 52;

export function newRequestId(): string {
  const bytes = randomBytes(REQUEST_ID_CHARS);
  let id = '';
  // 256 % 36 = 4, so the first four symbols are slightly likelier: ids must be unique, not uniform.
  for (const b of bytes) id += ID_ALPHABET[b % ID_ALPHABET.length];
  return id;
}

export function wireResponse(statusCode: number, contentType: string, text: string): WireResponse {
  const body = Buffer.from(text, 'utf8');
  return {
    statusCode,
    headers: {
      'content-type': contentType,
      'content-length': String(body.byteLength),
      'x-amz-crc32': String(bodyCrc32(body)),
      'x-amzn-requestid': newRequestId(),
    },
    body,
  };
}

export function jsonResponse(statusCode: number, value: unknown, contentType = JSON_CONTENT_TYPE): WireResponse {
  return wireResponse(statusCode, contentType, JSON.stringify(value));
}
