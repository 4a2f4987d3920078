/**
 * SigV4 verification as DynamoDB does it, against the AWS SDK v3's own signer: the right key
 * passes (DynamoDB and Streams, any region unless one is pinned); a wrong secret, an unknown key,
 * a replay outside the 15-minute skew, a body altered after signing and a session token get
 * DynamoDB's errors and change nothing. Raw requests cover the header's form and scope, checked in
 * the service's order and words.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient, DynamoDBServiceException, ListTablesCommand, PutItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, ListStreamsCommand } from '@aws-sdk/client-dynamodb-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { SIGNATURE_MISMATCH_MESSAGE } from '../../src/server/sigv4.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { call, send } from './raw-http.js';

const UNSIGNED = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' };

const temp = useTempDbs('file');
const KEY_ID = 'AKIDEDGETABLE';
const SECRET = 'edge/secret+key';
let db: Edgetable;
let server: RunningServer;

beforeAll(async () => {
  db = temp.open();
  db.createTable(tableRequest('Tab', ['id', 'S']));
  server = await startServer({ db, port: 0, auth: { credentials: { [KEY_ID]: SECRET } } });
});
afterAll(async () => {
  await server.close();
});

function client(accessKeyId: string, secretAccessKey: string, region = 'eu-west-1', port = server.port, sessionToken?: string): DynamoDBClient {
  const credentials = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
  return new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region, credentials, maxAttempts: 1 });
}

type Failure = { name: string; message: string; status: number | undefined };

async function sdkError(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    const error = e as DynamoDBServiceException;
    return { name: error.name, message: error.message, status: error.$metadata?.httpStatusCode };
  }
  throw new Error('expected the call to fail');
}

/**
 * The request the SDK signed for `send` (lower-case headers, body text), as someone on the wire
 * would capture it; it is never delivered, so the test decides where it goes.
 */
async function captureSigned(c: DynamoDBClient, send: (c: DynamoDBClient) => Promise<unknown>): Promise<{ headers: Record<string, string>; body: string }> {
  let captured: { headers: Record<string, string>; body: string } | undefined;
  const held = new Error('held back after signing');
  c.middlewareStack.add(
    () => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string };
      captured = { headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])), body: request.body };
      throw held;
    },
    { step: 'finalizeRequest', priority: 'low' },
  );
  await expect(send(c)).rejects.toBe(held);
  c.destroy();
  delete captured!.headers['content-length']; // node sets it for the body actually sent
  return captured!;
}

function amzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** The X-Amz-Date of signed headers, in ms. */
function signedAt(headers: Record<string, string>): number {
  return Date.parse(headers['x-amz-date']!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
}

function parsedError(text: string): { __type: string; message: string } {
  return JSON.parse(text) as { __type: string; message: string };
}

describe('SigV4 verification (the AWS SDK signing)', () => {
  it('accepts requests signed with a known key, in any region', async () => {
    for (const region of ['eu-west-1', 'us-east-1']) {
      const c = client(KEY_ID, SECRET, region);
      await c.send(new PutItemCommand({ TableName: 'Tab', Item: { id: { S: `r-${region}` }, note: { S: 'spaces  and ünïcode' } } }));
      const got = await c.send(new GetItemCommand({ TableName: 'Tab', Key: { id: { S: `r-${region}` } } }));
      expect(got.Item?.note?.S).toBe('spaces  and ünïcode');
      c.destroy();
    }
  });

  it('a wrong secret gets InvalidSignatureException, with the canonical request the server expected, and writes nothing', async () => {
    const c = client(KEY_ID, 'not-the-secret');
    const e = await sdkError(c.send(new PutItemCommand({ TableName: 'Tab', Item: { id: { S: 'forged' } } })));
    c.destroy();
    expect({ name: e.name, status: e.status }).toEqual({ name: 'InvalidSignatureException', status: 400 });
    expect(e.message.startsWith(`${SIGNATURE_MISMATCH_MESSAGE}\n\nThe Canonical String for this request should have been\n'POST\n/\n\n`)).toBe(true);
    expect(e.message).toMatch(/\n\nThe String-to-Sign should have been\n'AWS4-HMAC-SHA256\n\d{8}T\d{6}Z\n\d{8}\/eu-west-1\/dynamodb\/aws4_request\n[0-9a-f]{64}'\n$/);
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'forged' } } }).Item).toBeUndefined();
  });

  it('an unknown access key gets UnrecognizedClientException', async () => {
    const c = client('AKIDUNKNOWN', SECRET);
    expect(await sdkError(c.send(new ListTablesCommand({})))).toEqual({ name: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.', status: 400 });
    c.destroy();
  });

  it('a session token (which this server never issues) gets UnrecognizedClientException, even with a right signature', async () => {
    const c = client(KEY_ID, SECRET, 'eu-west-1', server.port, 'FwoGZXIvYXdzEXAMPLE');
    expect(await sdkError(c.send(new ListTablesCommand({})))).toEqual({ name: 'UnrecognizedClientException', message: 'The security token included in the request is invalid', status: 400 });
    c.destroy();
  });

  it('the Streams API on the same port is checked the same way', async () => {
    const streams = (secret: string) => new DynamoDBStreamsClient({ endpoint: `http://127.0.0.1:${server.port}`, region: 'us-east-1', credentials: { accessKeyId: KEY_ID, secretAccessKey: secret }, maxAttempts: 1 });
    const good = streams(SECRET);
    expect((await good.send(new ListStreamsCommand({}))).Streams).toEqual([]);
    good.destroy();
    const bad = streams('not-the-secret');
    expect((await sdkError(bad.send(new ListStreamsCommand({})))).name).toBe('InvalidSignatureException');
    bad.destroy();
  });

  it('with a region pinned, a request signed for another region is refused and one for it accepted', async () => {
    const pinned = await startServer({ db, port: 0, auth: { credentials: { [KEY_ID]: SECRET }, region: 'eu-central-1' } });
    try {
      const other = client(KEY_ID, SECRET, 'us-east-1', pinned.port);
      expect(await sdkError(other.send(new ListTablesCommand({})))).toEqual({ name: 'InvalidSignatureException', message: "Credential should be scoped to a valid region, not 'us-east-1'. ", status: 400 });
      other.destroy();
      const right = client(KEY_ID, SECRET, 'eu-central-1', pinned.port);
      expect((await right.send(new ListTablesCommand({}))).TableNames).toEqual(['Tab']);
      right.destroy();
    } finally {
      await pinned.close();
    }
  });
});

describe('a captured signed request', () => {
  const putForged = (c: DynamoDBClient) => c.send(new PutItemCommand({ TableName: 'Tab', Item: { id: { S: 'replayed' }, n: { N: '1' } } }));

  it('replayed within the skew is accepted (as by DynamoDB); replayed 16 minutes later it is refused as expired, writing nothing', async () => {
    const db2 = temp.open();
    db2.createTable(tableRequest('Tab', ['id', 'S']));
    const { headers, body } = await captureSigned(client(KEY_ID, SECRET), (c) => c.send(new ListTablesCommand({})));
    const put = await captureSigned(client(KEY_ID, SECRET), putForged);
    const putAt = signedAt(put.headers);
    const later = await startServer({ db: db2, port: 0, auth: { credentials: { [KEY_ID]: SECRET }, now: () => putAt + 16 * 60_000 } });
    try {
      const r = await send(later.port, { headers: put.headers, body: put.body });
      expect(r.status).toBe(400);
      expect(parsedError(r.text)).toEqual({
        __type: 'com.amazon.coral.service#InvalidSignatureException',
        message: `Signature expired: ${put.headers['x-amz-date']} is now earlier than ${amzDate(putAt + 60_000)} (${amzDate(putAt + 16 * 60_000)} - 15 min.)`,
      });
      expect(db2.getItem({ TableName: 'Tab', Key: { id: { S: 'replayed' } } }).Item).toBeUndefined();
    } finally {
      await later.close();
    }
    const within = await send(server.port, { headers, body });
    expect(within.status, within.text).toBe(200);
  });

  it('a request dated 16 minutes ahead of the server clock is not yet current', async () => {
    const put = await captureSigned(client(KEY_ID, SECRET), (c) => c.send(new ListTablesCommand({})));
    const putAt = signedAt(put.headers);
    const earlier = await startServer({ db, port: 0, auth: { credentials: { [KEY_ID]: SECRET }, now: () => putAt - 16 * 60_000 } });
    try {
      const r = await send(earlier.port, { headers: put.headers, body: put.body });
      expect(parsedError(r.text).message).toBe(`Signature not yet current: ${put.headers['x-amz-date']} is still later than ${amzDate(putAt - 60_000)} (${amzDate(putAt - 16 * 60_000)} + 15 min.)`);
    } finally {
      await earlier.close();
    }
  });

  it('with its body altered fails the signature, whether or not x-amz-content-sha256 is made to match the new body', async () => {
    const put = await captureSigned(client(KEY_ID, SECRET), putForged);
    expect(put.headers['authorization']).toContain('x-amz-content-sha256'); // the SDK sends and signs it
    const altered = put.body.replace('"1"', '"2"');
    expect(altered).not.toBe(put.body);
    const sha = createHash('sha256').update(altered).digest('hex');
    for (const headers of [put.headers, { ...put.headers, 'x-amz-content-sha256': sha }]) {
      const r = await send(server.port, { headers, body: altered });
      expect(r.status).toBe(400);
      expect(parsedError(r.text).__type).toBe('com.amazon.coral.service#InvalidSignatureException');
      expect(parsedError(r.text).message.startsWith(SIGNATURE_MISMATCH_MESSAGE)).toBe(true);
    }
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'replayed' } } }).Item).toBeUndefined();
    // the same bytes as signed go through
    const r = await send(server.port, { headers: put.headers, body: put.body });
    expect(r.status, r.text).toBe(200);
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'replayed' } } }).Item?.['n']).toEqual({ N: '1' });
  });

  it('with another operation named in X-Amz-Target fails the signature', async () => {
    const get = await captureSigned(client(KEY_ID, SECRET), (c) => c.send(new GetItemCommand({ TableName: 'Tab', Key: { id: { S: 'x' } } })));
    const r = await send(server.port, { headers: { ...get.headers, 'x-amz-target': 'DynamoDB_20120810.DeleteItem' }, body: get.body });
    expect(parsedError(r.text).__type).toBe('com.amazon.coral.service#InvalidSignatureException');
  });
});

describe('the Authorization header, in the order and words of the service (raw requests)', () => {
  const now = amzDate(Date.now());
  const day = now.slice(0, 8);
  const auth = (credential: string, signedHeaders = 'host;x-amz-date', algorithm = 'AWS4-HMAC-SHA256') => `${algorithm} Credential=${credential}, SignedHeaders=${signedHeaders}, Signature=${'0'.repeat(64)}`;
  const error = async (headers: Record<string, string>) => parsedError((await send(server.port, { headers: { ...UNSIGNED, ...headers }, body: '{}' })).text);

  it('no Authorization header: MissingAuthenticationTokenException', async () => {
    expect(await error({})).toEqual({ __type: 'com.amazon.coral.service#MissingAuthenticationTokenException', message: 'Request is missing Authentication Token' });
  });

  it('a header without its parts: IncompleteSignatureException naming each', async () => {
    const header = `AWS4-HMAC-SHA256 Credential=${KEY_ID}/20260101/us-east-1/dynamodb/aws4_request`;
    expect(await error({ authorization: header })).toEqual({
      __type: 'com.amazon.coral.service#IncompleteSignatureException',
      message: `Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=${header}`,
    });
  });

  it.each([
    ['a date not in ISO-8601 basic format', { 'x-amz-date': '2026-01-01T00:00:00Z', authorization: auth(`${KEY_ID}/${day}/us-east-1/dynamodb/aws4_request`) },
      'IncompleteSignatureException', "Date must be in ISO-8601 'basic format'. Got '2026-01-01T00:00:00Z'. See http://en.wikipedia.org/wiki/ISO_8601"],
    ['an expired date is found before an unknown key', { 'x-amz-date': '20200101T000000Z', authorization: auth('AKIDUNKNOWN/20200101/us-east-1/dynamodb/aws4_request') },
      'InvalidSignatureException', /^Signature expired: 20200101T000000Z is now earlier than /],
    ['host not signed', { 'x-amz-date': now, authorization: auth(`${KEY_ID}/${day}/us-east-1/dynamodb/aws4_request`, 'x-amz-date') },
      'InvalidSignatureException', "'Host' must be a 'SignedHeader' in the AWS Authorization."],
    ['another algorithm', { 'x-amz-date': now, authorization: auth(`${KEY_ID}/${day}/us-east-1/dynamodb/aws4_request`, 'host', 'AWS4-HMAC-SHA512') },
      'IncompleteSignatureException', "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA512' (only AWS4-HMAC-SHA256 for now). "],
    ['a Credential of four parts', { 'x-amz-date': now, authorization: auth(`${KEY_ID}/${day}/us-east-1/dynamodb`) },
      'IncompleteSignatureException', `Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '${KEY_ID}/${day}/us-east-1/dynamodb'`],
    ['another service', { 'x-amz-date': now, authorization: auth(`${KEY_ID}/${day}/us-east-1/s3/aws4_request`) },
      'InvalidSignatureException', "Credential should be scoped to correct service: 'dynamodb'. "],
    ['every wrong part of the scope at once, named in order', { 'x-amz-date': now, authorization: auth(`${KEY_ID}/19990101/us-east-1/streams.dynamodb/aws5_request`) },
      'InvalidSignatureException',
      `Credential should be scoped to correct service: 'dynamodb'. Credential should be scoped with a valid terminator: 'aws4_request', not 'aws5_request'. Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '19990101' != '${day}', from '${now}'.`],
    ['a trailing slash in the Credential is ignored: a well-scoped unknown key', { 'x-amz-date': now, authorization: auth(`AKIDUNKNOWN/${day}/us-east-1/dynamodb/aws4_request/`) },
      'UnrecognizedClientException', 'The security token included in the request is invalid.'],
  ])('%s', async (_, headers: Record<string, string>, name: string, message: string | RegExp) => {
    const e = await error(headers);
    expect(e.__type).toBe(`com.amazon.coral.service#${name}`);
    if (typeof message === 'string') expect(e.message).toBe(message);
    else expect(e.message).toMatch(message);
  });

  it('a flood of writes with a made-up signature under a real key id writes nothing', async () => {
    const before = db.scan({ TableName: 'Tab' }).Count;
    const headers = { 'x-amz-date': now, authorization: auth(`${KEY_ID}/${day}/us-east-1/dynamodb/aws4_request`, 'host;x-amz-date') };
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => call(server.port, 'PutItem', { TableName: 'Tab', Item: { id: { S: `flood-${i}` } } }, { headers })),
    );
    expect(new Set(answers.map((r) => `${r.status} ${parsedError(r.text).__type}`))).toEqual(new Set(['400 com.amazon.coral.service#InvalidSignatureException']));
    expect(db.scan({ TableName: 'Tab' }).Count).toBe(before);
  });

  it('the health check needs no signature', async () => {
    const r = await send(server.port, { method: 'GET', path: '/' });
    expect(r.status).toBe(200);
  });

  it('a well-formed header with any signature is still accepted when verification is off (as DynamoDB Local)', async () => {
    const open = await startServer({ db, port: 0 });
    try {
      const r = await call(open.port, 'ListTables', {});
      expect(r.status, r.text).toBe(200);
    } finally {
      await open.close();
    }
  });
});
