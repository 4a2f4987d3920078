/**
 * AWS Signature Version 4 verification of the Authorization header (header signing only; presigned
 * query strings are not supported), as DynamoDB verifies it. Off by default, like DynamoDB Local:
 * startServer verifies only when given `auth.credentials` (`serve --auth-file`). What is signed is
 * built in sigv4-canonical.ts. Spec §8.1 and AWS's SigV4 documentation:
 *
 *   Authorization  := "AWS4-HMAC-SHA256" SP "Credential=" key "/" date "/" region "/" service
 *                     "/aws4_request" "," SP? "SignedHeaders=" names(";") "," SP? "Signature=" hex64
 *
 * Checks, in the order DynamoDB makes them (dynalite's captures of the service), with its errors:
 *   no Authorization header (or not AWS4-)        -> MissingAuthenticationTokenException
 *   a part or the date missing                    -> IncompleteSignatureException
 *   X-Amz-Date not ISO-8601 basic                 -> IncompleteSignatureException
 *   X-Amz-Date outside maxSkewMs of the clock     -> InvalidSignatureException (expired / not yet current)
 *   `host` not among the signed headers           -> InvalidSignatureException
 *   another algorithm                             -> IncompleteSignatureException
 *   a Credential without 5 parts                  -> IncompleteSignatureException
 *   scope: region, service `dynamodb`, terminator, date -> InvalidSignatureException (each wrong part named)
 *   unknown access key id                         -> UnrecognizedClientException
 *   signature differs                             -> InvalidSignatureException (with what was expected)
 *   X-Amz-Security-Token sent                     -> UnrecognizedClientException (no session tokens here)
 * A signed request can be replayed while its date is within the skew, as with DynamoDB itself.
 */
import { timingSafeEqual } from 'node:crypto';
import { ALGORITHM, sign, type CanonicalInput } from './sigv4-canonical.js';

export { ALGORITHM } from './sigv4-canonical.js';

export type SigV4Options = {
  /** Secret access key by access key id. */
  readonly credentials: Readonly<Record<string, string>>;
  /** The one region a credential scope may name. Default: any (an edge server has no region of its own). */
  readonly region?: string;
  /** Largest accepted difference between X-Amz-Date and the server clock. Default 15 minutes (AWS's). */
  readonly maxSkewMs?: number;
  /** The server clock, ms since the epoch; injectable for tests. */
  readonly now?: () => number;
};

export type SignedRequest = CanonicalInput;

/** DynamoDB's error name and message; `keyId` once the Credential named one (for the log). */
export type AuthFailure = { readonly name: string; readonly message: string; readonly keyId?: string };

/** The service every DynamoDB and DynamoDB Streams request is signed for (the SDKs' signing name). */
export const SIGNING_SERVICE = 'dynamodb';
const DEFAULT_MAX_SKEW_MS = 15 * 60_000;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

export const MISSING_TOKEN_MESSAGE = 'Request is missing Authentication Token';
export const UNRECOGNIZED_CLIENT_MESSAGE = 'The security token included in the request is invalid.';
/** The service's text for a session token it does not know: the same words, without the period. */
export const UNRECOGNIZED_TOKEN_MESSAGE = 'The security token included in the request is invalid';
export const SIGNATURE_MISMATCH_MESSAGE =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
export const HOST_NOT_SIGNED_MESSAGE = "'Host' must be a 'SignedHeader' in the AWS Authorization.";

type Authorization = { header: string; algorithm: string; credential: string; signedHeaders: string[]; signature: string; amzDate: string };

/**
 * The checks DynamoDB (and DynamoDB Local) make of every request even when signatures are not
 * verified: an Authorization header of the AWS4 family is present, has its parts and a date, names
 * the algorithm and a Credential of five parts. undefined when it does; else the error.
 */
export function checkAuthorizationHeader(headers: SignedRequest['headers']): AuthFailure | undefined {
  const auth = readAuthorization(headers);
  if ('name' in auth) return auth;
  const form = checkAlgorithm(auth) ?? credentialParts(auth);
  return 'name' in form ? form : undefined;
}

/** undefined when the request is signed by a known key; else DynamoDB's error name and message. */
export function verifySigV4(request: SignedRequest, options: SigV4Options): AuthFailure | undefined {
  const auth = readAuthorization(request.headers);
  if ('name' in auth) return auth;
  const { amzDate } = auth;
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined) return incomplete(`Date must be in ISO-8601 'basic format'. Got '${amzDate}'. See http://en.wikipedia.org/wiki/ISO_8601`);
  const now = (options.now ?? Date.now)();
  const skew = options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  const minutes = skew / 60_000;
  if (signedAt < now - skew) return invalid(`Signature expired: ${amzDate} is now earlier than ${formatAmzDate(now - skew)} (${formatAmzDate(now)} - ${minutes} min.)`);
  if (signedAt > now + skew) return invalid(`Signature not yet current: ${amzDate} is still later than ${formatAmzDate(now + skew)} (${formatAmzDate(now)} + ${minutes} min.)`);
  if (!auth.signedHeaders.some((name) => name.toLowerCase() === 'host')) return invalid(HOST_NOT_SIGNED_MESSAGE);
  const algorithm = checkAlgorithm(auth);
  if (algorithm) return algorithm;
  const parts = credentialParts(auth);
  if ('name' in parts) return parts;
  const [keyId, date, region, service, terminator] = parts;

  let scope = '';
  if (region === '' || (options.region !== undefined && region !== options.region)) scope += `Credential should be scoped to a valid region, not '${region}'. `;
  if (service !== SIGNING_SERVICE) scope += `Credential should be scoped to correct service: '${SIGNING_SERVICE}'. `;
  if (terminator !== 'aws4_request') scope += `Credential should be scoped with a valid terminator: 'aws4_request', not '${terminator}'. `;
  if (date !== amzDate.slice(0, 8)) scope += `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${date}' != '${amzDate.slice(0, 8)}', from '${amzDate}'.`;
  if (scope !== '') return { ...invalid(scope), keyId };

  const secret = Object.hasOwn(options.credentials, keyId) ? options.credentials[keyId] : undefined;
  if (secret === undefined) return { name: 'UnrecognizedClientException', message: UNRECOGNIZED_CLIENT_MESSAGE, keyId };
  const expected = sign(request, auth.signedHeaders, amzDate, { date, region, service }, secret);
  const given = Buffer.from(auth.signature, 'utf8');
  const wanted = Buffer.from(expected.signature, 'utf8');
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
    const detail = `\n\nThe Canonical String for this request should have been\n'${expected.canonical}'\n\nThe String-to-Sign should have been\n'${expected.stringToSign}'\n`;
    return { ...invalid(SIGNATURE_MISMATCH_MESSAGE + detail), keyId };
  }
  if (request.headers['x-amz-security-token'] !== undefined) return { name: 'UnrecognizedClientException', message: UNRECOGNIZED_TOKEN_MESSAGE, keyId };
  return undefined;
}

function invalid(message: string): AuthFailure {
  return { name: 'InvalidSignatureException', message };
}

function incomplete(message: string): AuthFailure {
  return { name: 'IncompleteSignatureException', message };
}

/** The header's parts and the request's date, or the first two checks' failure. */
function readAuthorization(headers: SignedRequest['headers']): Authorization | AuthFailure {
  const raw = headers['authorization'];
  if (raw === undefined || !raw.trim().startsWith('AWS4-')) return { name: 'MissingAuthenticationTokenException', message: MISSING_TOKEN_MESSAGE };
  const header = raw.trim();
  const amzDate = headers['x-amz-date'] ?? headers['date'];
  const params = new Map<string, string>();
  const [algorithm = '', ...rest] = header.split(/[\s,]+/);
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq), part.slice(eq + 1));
  }
  let message = '';
  for (const name of ['Credential', 'Signature', 'SignedHeaders']) {
    if (!params.get(name)) message += `Authorization header requires '${name}' parameter. `;
  }
  if (amzDate === undefined) message += "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ";
  if (message !== '') return incomplete(`${message}Authorization=${header}`);
  return {
    header,
    algorithm,
    credential: params.get('Credential')!,
    signedHeaders: params.get('SignedHeaders')!.split(';'),
    signature: params.get('Signature')!,
    amzDate: amzDate!,
  };
}

function checkAlgorithm(auth: Authorization): AuthFailure | undefined {
  return auth.algorithm === ALGORITHM ? undefined : incomplete(`Unsupported AWS 'algorithm': '${auth.algorithm}' (only ${ALGORITHM} for now). `);
}

/** keyid/date/region/service/terminator; trailing slashes are ignored, as the service does. */
function credentialParts(auth: Authorization): [string, string, string, string, string] | AuthFailure {
  const parts = auth.credential.replace(/\/+$/, '').split('/');
  if (parts.length !== 5) {
    return incomplete(`Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '${auth.credential}'`);
  }
  return parts as [string, string, string, string, string];
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
