/**
 * The bytes SigV4 signs, built from a request as it arrived (AWS's "Create a canonical request"
 * and "Create a string to sign"):
 *
 *   canonical      := method LF uri LF query LF (name ":" trimmed-value LF)* LF signed-names LF
 *                     hex(sha256(body))
 *   string-to-sign := "AWS4-HMAC-SHA256" LF x-amz-date LF scope LF hex(sha256(canonical))
 *   scope          := date "/" region "/" service "/aws4_request"
 *   signing key    := HMAC(HMAC(HMAC(HMAC("AWS4" secret, date), region), service), "aws4_request")
 *   signature      := hex(HMAC(signing key, string-to-sign))
 *
 * The payload line is always the hash of the bytes received, never a client's
 * `x-amz-content-sha256`: a client that sends that header signed it as a header and signed the
 * hash it declares, so a body altered after signing fails whether the header was sent or not.
 */
import { createHash, createHmac } from 'node:crypto';

export const ALGORITHM = 'AWS4-HMAC-SHA256';

export type CanonicalInput = {
  readonly method: string;
  readonly path: string;
  /** The raw query string without `?` ('' when none). */
  readonly query: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Uint8Array;
};

export type Scope = { readonly date: string; readonly region: string; readonly service: string };

export type Signing = { readonly canonical: string; readonly stringToSign: string; readonly signature: string };

/** What a client holding `secret` would have signed for this request, and its hex signature. */
export function sign(request: CanonicalInput, signedHeaders: readonly string[], amzDate: string, scope: Scope, secret: string): Signing {
  const canonical = [
    request.method.toUpperCase(),
    canonicalUri(request.path),
    canonicalQuery(request.query),
    signedHeaders.map((name) => `${name}:${canonicalHeaderValue(request.headers[name.toLowerCase()] ?? '')}\n`).join(''),
    signedHeaders.join(';'),
    createHash('sha256').update(request.body).digest('hex'),
  ].join('\n');
  const scopeText = `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scopeText, createHash('sha256').update(canonical, 'utf8').digest('hex')].join('\n');
  let key: Buffer = hmac(`AWS4${secret}`, scope.date);
  for (const part of [scope.region, scope.service, 'aws4_request']) key = hmac(key, part);
  return { canonical, stringToSign, signature: createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex') };
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/**
 * The path as sent on the wire, URI-encoded once more with slashes kept: AWS SDKs sign non-S3
 * paths "double-encoded" (the serializer encoded them once already). DynamoDB's is always "/".
 */
function canonicalUri(path: string): string {
  return path === '' ? '/' : uriEncode(path).replace(/%2F/g, '/');
}

function canonicalQuery(query: string): string {
  if (query === '') return '';
  const pairs = query.split('&').filter((p) => p !== '').map((p) => {
    const eq = p.indexOf('=');
    const key = safeDecode(eq < 0 ? p : p.slice(0, eq));
    const value = eq < 0 ? '' : safeDecode(p.slice(eq + 1));
    return [uriEncode(key), uriEncode(value)] as const;
  });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

function canonicalHeaderValue(value: string): string {
  return value.trim().replace(/\s+/g, ' ');
}

function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, '%20'));
  } catch {
    return text;
  }
}
