/**
 * The DynamoDB HTTP API over a loopback socket, byte by byte: headers every response carries,
 * error bodies and statuses (spec §8), body limits enforced while streaming, keep-alive, and a
 * close() that lets requests in flight finish.
 */
import { Agent } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { AUTH_HEADERS, call, crc32Oracle, send, type RawResponse } from './raw-http.js';

const temp = useTempDbs();
let db: Edgetable;
let server: RunningServer;
const internalErrors: unknown[] = [];

beforeEach(async () => {
  db = temp.open();
  db.createTable(tableRequest('Things', ['id', 'S']));
  internalErrors.length = 0;
  server = await startServer({ db, port: 0, maxBodyBytes: 1024, onInternalError: (e) => internalErrors.push(e) });
});
afterEach(async () => {
  await server.close();
});

function expectProtocolHeaders(r: RawResponse): void {
  expect(r.headers['x-amz-crc32']).toBe(String(crc32Oracle(r.body)));
  expect(r.headers['x-amzn-requestid']).toMatch(/^[A-Z0-9]{52}$/);
  expect(r.headers['content-length']).toBe(String(r.body.byteLength));
}

function json(r: RawResponse): Record<string, unknown> {
  return JSON.parse(r.text) as Record<string, unknown>;
}

describe('successful calls', () => {
  it('answers with 200, the JSON 1.0 content type, crc32 of the exact bytes and a request id', async () => {
    const put = await call(server.port, 'PutItem', { TableName: 'Things', Item: { id: { S: 'a' }, note: { S: 'héllo ✓' } } });
    expect(put.status).toBe(200);
    expect(put.text).toBe('{}');
    expect(put.headers['content-type']).toBe('application/x-amz-json-1.0');
    expectProtocolHeaders(put);
    expect(put.headers['x-amz-crc32']).toBe('2745614147'); // CRC-32 of "{}"

    const get = await call(server.port, 'GetItem', { TableName: 'Things', Key: { id: { S: 'a' } } });
    expect(get.status).toBe(200);
    expect(json(get)).toEqual({ Item: { id: { S: 'a' }, note: { S: 'héllo ✓' } } });
    expectProtocolHeaders(get); // multi-byte UTF-8: the crc covers bytes, not characters
  });

  it('accepts application/json (with parameters) and answers in kind', async () => {
    const r = await call(server.port, 'ListTables', {}, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(json(r)).toEqual({ TableNames: ['Things'] });
  });

  it('answers GET / as a health check, with the service text', async () => {
    const r = await send(server.port, { method: 'GET', path: '/' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('healthy: dynamodb.us-east-1.amazonaws.com ');
    expectProtocolHeaders(r);
  });

  it('accepts an empty body without a content type up to the body check', async () => {
    const r = await send(server.port, { headers: { 'x-amz-target': 'DynamoDB_20120810.ListTables', ...AUTH_HEADERS } });
    expect(r.status).toBe(400);
    expect(json(r)).toEqual({ __type: 'com.amazon.coral.service#SerializationException' });
    expectProtocolHeaders(r);
  });
});

describe('error responses', () => {
  it('names ValidationException in the coral validate namespace with DynamoDB text', async () => {
    const r = await call(server.port, 'GetItem', { TableName: 'Things', Key: { id: { N: '1' } } });
    expect(r.status).toBe(400);
    expect(json(r)).toEqual({ __type: 'com.amazon.coral.validate#ValidationException', message: 'The provided key element does not match the schema' });
    expectProtocolHeaders(r);
  });

  it('names engine exceptions in the DynamoDB namespace', async () => {
    const r = await call(server.port, 'GetItem', { TableName: 'Missing', Key: { id: { S: 'a' } } });
    expect(r.status).toBe(400);
    expect(json(r)).toEqual({ __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', message: 'Requested resource not found' });
    const again = await call(server.port, 'CreateTable', tableRequest('Things', ['id', 'S']));
    expect(json(again)).toEqual({ __type: 'com.amazonaws.dynamodb.v20120810#ResourceInUseException', message: 'Table already exists: Things' });
  });

  it('carries the old item on ConditionalCheckFailedException when asked', async () => {
    const item = { id: { S: 'a' }, n: { N: '1' } };
    await call(server.port, 'PutItem', { TableName: 'Things', Item: item });
    const request = { TableName: 'Things', Item: { id: { S: 'a' } }, ConditionExpression: 'attribute_not_exists(id)' };
    const bare = await call(server.port, 'PutItem', request);
    expect(bare.status).toBe(400);
    expect(json(bare)).toEqual({ __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'The conditional request failed' });
    const withItem = await call(server.port, 'PutItem', { ...request, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    expect(json(withItem)).toEqual({
      __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
      message: 'The conditional request failed',
      Item: item,
    });
  });

  it.each([
    ['an unknown operation', 'DynamoDB_20120810.FlyToTheMoon'],
    ['a prototype key', 'DynamoDB_20120810.toString'],
    ['another service prefix', 'Kinesis_20131202.GetRecords'],
    ['a Streams operation under the DynamoDB prefix', 'DynamoDB_20120810.GetRecords'],
    ['a DynamoDB operation under the Streams prefix', 'DynamoDBStreams_20120810.PutItem'],
    ['a bare operation name', 'PutItem'],
  ])('rejects %s as UnknownOperationException', async (_, target) => {
    const r = await send(server.port, { headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target }, body: '{}' });
    expect(r.status).toBe(400);
    expect(json(r).__type).toBe('com.amazon.coral.service#UnknownOperationException');
    expectProtocolHeaders(r);
  });

  it('rejects a missing X-Amz-Target as UnknownOperationException', async () => {
    const r = await send(server.port, { headers: { 'content-type': 'application/x-amz-json-1.0' }, body: '{}' });
    expect(r.status).toBe(400);
    expect(json(r).__type).toBe('com.amazon.coral.service#UnknownOperationException');
  });

  it.each(['{"TableName": ', 'not json', '[1,'])('rejects the unparseable body %j as SerializationException', async (body) => {
    const r = await call(server.port, 'ListTables', body);
    expect(r.status).toBe(400);
    expect(json(r).__type).toBe('com.amazon.coral.service#SerializationException');
    expectProtocolHeaders(r);
  });

  it('rejects wrong JSON types with the service text', async () => {
    const r = await call(server.port, 'PutItem', '{"TableName":"Things","Item":{"id":{"S":5}}}');
    expect(r.status).toBe(400);
    expect(json(r)).toEqual({ __type: 'com.amazon.coral.service#SerializationException', message: 'NUMBER_VALUE cannot be converted to String' });
  });

  it.each([
    ['a text content type', 'POST', 'text/plain'],
    ['no content type', 'POST', undefined],
    ['a PUT', 'PUT', 'application/x-amz-json-1.0'],
    ['a GET off the root', 'GET', undefined],
  ])('answers %s with 404 <UnknownOperationException/>', async (_, method, contentType) => {
    const headers: Record<string, string> = { 'x-amz-target': 'DynamoDB_20120810.ListTables' };
    if (contentType) headers['content-type'] = contentType;
    const r = await send(server.port, { method, path: method === 'GET' ? '/tables' : '/', headers, body: method === 'GET' ? undefined : '{}' });
    expect(r.status).toBe(404);
    expect(r.text).toBe('<UnknownOperationException/>\n');
    expectProtocolHeaders(r);
  });

  it.each([
    ['application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json'],
    ['application/x-amz-json-1.0; charset=UTF-8', 'application/x-amz-json-1.0'],
  ])('a %s body that is not JSON is a SerializationException without message', async (contentType, answered) => {
    const r = await call(server.port, 'ListTables', '{"a":', { headers: { 'content-type': contentType } });
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toBe(answered);
    expect(json(r)).toEqual({ __type: 'com.amazon.coral.service#SerializationException' });
    expectProtocolHeaders(r);
  });

  it('an empty body is a SerializationException once authenticated', async () => {
    const r = await call(server.port, 'ListTables', '');
    expect(json(r)).toEqual({ __type: 'com.amazon.coral.service#SerializationException' });
  });

  it('an unknown target is refused without a message', async () => {
    const r = await call(server.port, 'Teleport', {});
    expect(json(r)).toEqual({ __type: 'com.amazon.coral.service#UnknownOperationException' });
  });

  describe('authentication, checked for form even when signatures are not verified (as DynamoDB Local)', () => {
    const base = { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.ListTables' };

    it.each([
      ['no Authorization header', {}],
      ['an Authorization header of another scheme', { authorization: 'Bearer abc', 'x-amz-date': '20260101T000000Z' }],
    ])('%s: MissingAuthenticationTokenException', async (_, headers: Record<string, string>) => {
      const r = await send(server.port, { headers: { ...base, ...headers }, body: '{}' });
      expect(r.status).toBe(400);
      expect(json(r)).toEqual({ __type: 'com.amazon.coral.service#MissingAuthenticationTokenException', message: 'Request is missing Authentication Token' });
      expectProtocolHeaders(r);
    });

    it('an AWS4 header without its parts and no date: IncompleteSignatureException naming each', async () => {
      const r = await send(server.port, { headers: { ...base, authorization: 'AWS4-HMAC-SHA256 ' }, body: '{}' });
      expect(r.status).toBe(400);
      expect(json(r)).toEqual({
        __type: 'com.amazon.coral.service#IncompleteSignatureException',
        message:
          "Authorization header requires 'Credential' parameter. Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS4-HMAC-SHA256",
      });
    });

    it('a well-formed header with a Date header passes; its signature is not checked', async () => {
      const r = await send(server.port, {
        headers: { ...base, date: 'Thu, 01 Jan 2026 00:00:00 GMT', authorization: 'AWS4-HMAC-SHA256 Credential=a/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=1' },
        body: '{}',
      });
      expect(r.status).toBe(200);
      expect(json(r)).toEqual({ TableNames: ['Things'] });
    });
  });

  it('turns an unexpected failure into a 500 InternalServerError and keeps serving', async () => {
    const fail = (): never => {
      throw new Error('disk on fire');
    };
    const failing = { execute: fail, promises: { execute: async () => fail(), flush: () => undefined } } as unknown as Edgetable;
    const seen: unknown[] = [];
    const other = await startServer({ db: failing, port: 0, onInternalError: (e) => seen.push(e) });
    try {
      const r = await call(other.port, 'ListTables', {});
      expect(r.status).toBe(500);
      expect(json(r)).toEqual({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' });
      expectProtocolHeaders(r);
      expect((seen[0] as Error).message).toBe('disk on fire');
      expect((await call(other.port, 'ListTables', {})).status).toBe(500);
      expect((await send(other.port, { method: 'GET' })).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('request body limit', () => {
  const padded = (n: number): string => {
    const base = '{"TableName":"Things","Key":{"id":{"S":"a"}}}';
    return base + ' '.repeat(n - base.length);
  };

  it('accepts a body of exactly maxBodyBytes', async () => {
    const r = await call(server.port, 'GetItem', padded(1024));
    expect(r.status).toBe(200);
  });

  it('refuses a declared Content-Length over the limit with 413 before reading it', async () => {
    const r = await call(server.port, 'GetItem', padded(1025));
    expect(r.status).toBe(413);
    expect(json(r)).toEqual({ __type: 'com.amazon.coral.validate#ValidationException', message: 'Request size exceeded the limit of 1024 bytes' });
    expect(r.headers.connection).toBe('close');
    expectProtocolHeaders(r);
  });

  it('refuses a chunked body as soon as it passes the limit, while the client is still sending', async () => {
    let sent = 0;
    const r = await send(server.port, {
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem' },
      stream: (req) => {
        // Never ends: the answer must come while the body is still open.
        req.write('{"TableName":"Things","Item":{"id":{"S":"');
        for (; sent < 3; sent++) req.write('x'.repeat(600));
      },
    });
    expect(r.status).toBe(413);
    expect(db.scan({ TableName: 'Things' }).Count).toBe(0);
  });
});

describe('connections', () => {
  it('keeps a connection alive across requests', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await call(server.port, 'ListTables', {}, { agent });
      const second = await call(server.port, 'ListTables', {}, { agent });
      expect(first.reusedSocket).toBe(false);
      expect(second.reusedSocket).toBe(true);
      expect(second.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('close() lets a request in flight finish, then resolves', async () => {
    const agent = new Agent({ keepAlive: true });
    const body = JSON.stringify({ TableName: 'Things', Item: { id: { S: 'late' } } });
    let bodyEndedAt = Infinity;
    let closedAt = 0;
    let closing: Promise<void> | undefined;
    try {
      await call(server.port, 'ListTables', {}, { agent }); // leaves an idle keep-alive socket behind
      const r = await send(server.port, {
        agent,
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.PutItem', ...AUTH_HEADERS, 'content-length': String(body.length) },
        stream: (req) => {
          req.write(body.slice(0, 10));
          setTimeout(() => {
            closing = server.close().then(() => {
              closedAt = performance.now();
            });
            setTimeout(() => {
              bodyEndedAt = performance.now();
              req.end(body.slice(10));
            }, 50);
          }, 50);
        },
      });
      expect(r.status).toBe(200);
      expect(r.headers.connection).toBe('close');
      await closing;
      expect(closedAt).toBeGreaterThanOrEqual(bodyEndedAt);
      expect(db.getItem({ TableName: 'Things', Key: { id: { S: 'late' } } }).Item).toEqual({ id: { S: 'late' } });
      await expect(send(server.port, { method: 'GET' })).rejects.toThrow();
    } finally {
      agent.destroy();
    }
  });
});
