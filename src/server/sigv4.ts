/**
 * AWS Signature Version 4 verification of the Authorization header (header signing only; presigned
 * query strings are not supported). Off by default, like DynamoDB Local: startServer verifies only
 * when given `auth.credentials`. Spec §8.1 and AWS's SigV4 documentation:
 *
 *   Authorization  := "AWS4-HMAC-SHA256" SP "Credential=" key "/" date "/" region "/" service
 *                     "/aws4_request" "," SP? "SignedHeaders=" names(";") "," SP? "Signature=" hex64
 *   canonical      := method LF uri LF query LF (name ":" trimmed-value LF)* LF signed-names LF
 *                     hex(sha256(body))
 *   string-to-sign := "AWS4-HMAC-SHA256" LF x-amz-date LF scope LF hex(sha256(canonical))
 *   signing key    := HMAC(HMAC(HMAC(HMAC("AWS4" secret, date), region), service), "aws4_request")
 *
 * The payload hash is always computed from the bytes received (never taken from a header). Region
 * and service are whatever the client signed with: an edge server has no region of its own.
 * Failures, in the order checked, with DynamoDB's error names (spec §8.3):
 *   no Authorization header (or not AWS4-)  -> MissingAuthenticationTokenException
 *   malformed header, missing date          -> IncompleteSignatureException
 *   unknown access key id                   -> UnrecognizedClientException
 *   date outside maxSkewMs, scope mismatch  -> InvalidSignatureException
 *   signature differs                       -> InvalidSignatureException
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export type SigV4Options = {
  /** Secret access key by access key id. */
  readonly credentials: Readonly<Record<string, string>>;
  /** Largest accepted difference between X-Amz-Date and the server clock. Default 15 minutes (AWS's). */
  readonly maxSkewMs?: number;
  /** The server clock, ms since the epoch; injectable for tests. */
  readonly now?: () => number;
};

export type SignedRequest = {
  readonly method: string;
  readonly path: string;
  /** The raw query string without `?` ('' when none). */
  readonly query: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Uint8Array;
};

export type AuthFailure = { readonly name: string; readonly message: string };

export const ALGORITHM = 'AWS4-HMAC-SHA256';
const DEFAULT_MAX_SKEW_MS = 15 * 60_000;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

export const MISSING_TOKEN_MESSAGE = 'Request is missing Authentication Token';
export const UNRECOGNIZED_CLIENT_MESSAGE = 'The security token included in the request is invalid.';
export const SIGNATURE_MISMATCH_MESSAGE =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';

type ParsedAuthorization = { keyId: string; date: string; region: string; service: string; signedHeaders: string[]; signature: string };

/**
 * The checks DynamoDB (and DynamoDB Local) make of every request even when signatures are not
 * verified: an Authorization header of the AWS4 family is present and has its parts and a date.
 * undefined when it does; else DynamoDB's error name and message.
 */
export function checkAuthorizationHeader(headers: SignedRequest['headers']): AuthFailure | undefined {
  const parsed = readAuthorization(headers);
  return 'name' in parsed ? parsed : undefined;
}

function readAuthorization(headers: SignedRequest['headers']): ParsedAuthorization | AuthFailure {
  const header = headers['authorization'];
  if (header === undefined || !header.trim().startsWith('AWS4-')) return { name: 'MissingAuthenticationTokenException', message: MISSING_TOKEN_MESSAGE };
  const parsed = parseAuthorization(header, headers['x-amz-date'] ?? headers['date']);
  return typeof parsed === 'string' ? { name: 'IncompleteSignatureException', message: parsed } : parsed;
}

/** undefined when the request is signed by a known key; else DynamoDB's error name and message. */
export function verifySigV4(request: SignedRequest, options: SigV4Options): AuthFailure | undefined {
  const parsed = readAuthorization(request.headers);
  if ('name' in parsed) return parsed;
  // readAuthorization made sure one of the two is there; a Date header fails the ISO-8601 check.
  const amzDate = request.headers['x-amz-date'] ?? request.headers['date'];
  const secret = Object.hasOwn(options.credentials, parsed.keyId) ? options.credentials[parsed.keyId] : undefined;
  if (secret === undefined) return { name: 'UnrecognizedClientException', message: UNRECOGNIZED_CLIENT_MESSAGE };

  const signedAt = parseAmzDate(amzDate!);
  if (signedAt === undefined) return { name: 'IncompleteSignatureException', message: `Date must be in ISO-8601 'basic format'. Got '${amzDate}'. See http://en.wikipedia.org/wiki/ISO_8601` };
  const now = (options.now ?? Date.now)();
  const skew = options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  if (signedAt < now - skew) {
    return { name: 'InvalidSignatureException', message: `Signature expired: ${amzDate} is now earlier than ${formatAmzDate(now - skew)} (${formatAmzDate(now)} - ${skew / 60_000} min.)` };
  }
  if (signedAt > now + skew) {
    return { name: 'InvalidSignatureException', message: `Signature not yet current: ${amzDate} is still later than ${formatAmzDate(now + skew)} (${formatAmzDate(now)} + ${skew / 60_000} min.)` };
  }
  if (parsed.date !== amzDate!.slice(0, 8)) {
    return { name: 'InvalidSignatureException', message: `Credential should be scoped to a valid region. Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${parsed.date}' != '${amzDate!.slice(0, 8)}'` };
  }

  const expected = signature(request, parsed, amzDate!, secret);
  const given = Buffer.from(parsed.signature, 'utf8');
  const ok = given.length === expected.length && timingSafeEqual(given, expected);
  return ok ? undefined : { name: 'InvalidSignatureException', message: SIGNATURE_MISMATCH_MESSAGE };
}

/** The hex signature (as bytes of its ASCII text) the client should have sent. */
function signature(request: SignedRequest, auth: ParsedAuthorization, amzDate: string, secret: string): Buffer {
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const canonical = [
    request.method.toUpperCase(),
    canonicalUri(request.path),
    canonicalQuery(request.query),
    auth.signedHeaders.map((name) => `${name}:${canonicalHeaderValue(request.headers[name] ?? '')}\n`).join(''),
    auth.signedHeaders.join(';'),
    createHash('sha256').update(request.body).digest('hex'),
  ].join('\n');
  const toSign = [ALGORITHM, amzDate, scope, createHash('sha256').update(canonical, 'utf8').digest('hex')].join('\n');
  let key: Buffer = hmac(`AWS4${secret}`, auth.date);
  for (const part of [auth.region, auth.service, 'aws4_request']) key = hmac(key, part);
  return Buffer.from(createHmac('sha256', key).update(toSign, 'utf8').digest('hex'), 'utf8');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** Returns the parts, or IncompleteSignatureException's message (dynalite's wording). */
function parseAuthorization(header: string, amzDate: string | undefined): ParsedAuthorization | string {
  const params = new Map<string, string>();
  const [algorithm, ...rest] = header.trim().split(/[\s,]+/);
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq), part.slice(eq + 1));
  }
  let message = '';
  for (const name of ['Credential', 'Signature', 'SignedHeaders']) {
    if (!params.get(name)) message += `Authorization header requires '${name}' parameter. `;
  }
  if (amzDate === undefined) message += "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ";
  if (message !== '') return `${message}Authorization=${header}`;
  if (algorithm !== ALGORITHM) return `Unsupported Authorization Type: ${algorithm ?? ''}. Authorization=${header}`;
  const credential = params.get('Credential')!.split('/');
  if (credential.length !== 5 || credential[4] !== 'aws4_request' || credential.some((p) => p === '')) {
    return `Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '${params.get('Credential')}'`;
  }
  const [keyId, date, region, service] = credential as [string, string, string, string, string];
  const signedHeaders = params.get('SignedHeaders')!.split(';');
  return { keyId, date, region, service, signedHeaders, signature: params.get('Signature')! };
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

function parseAmzDate(text: string): number | undefined {
  const m = AMZ_DATE.exec(text);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(ms) ? undefined : ms;
}

function formatAmzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}
