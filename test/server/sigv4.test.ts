/**
 * SigV4 verification against the real AWS SDK v3 signer (correct keys pass, a wrong secret or an
 * unknown key fails with DynamoDB's error), plus raw requests for the malformed cases.
 */
import { DynamoDBClient, DynamoDBServiceException, ListTablesCommand, PutItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
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

function client(accessKeyId: string, secretAccessKey: string, region = 'eu-west-1'): DynamoDBClient {
  return new DynamoDBClient({ endpoint: `http://127.0.0.1:${server.port}`, region, credentials: { accessKeyId, secretAccessKey }, maxAttempts: 1 });
}

async function sdkError(promise: Promise<unknown>): Promise<{ name: string; message: string; status: number | undefined }> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(DynamoDBServiceException);
    const error = e as DynamoDBServiceException;
    return { name: error.name, message: error.message, status: error.$metadata.httpStatusCode };
  }
  throw new Error('expected the call to fail');
}

describe('SigV4 verification (real SDK signing)', () => {
  it('accepts requests signed with a known key, in any region', async () => {
    for (const region of ['eu-west-1', 'us-east-1']) {
      const c = client(KEY_ID, SECRET, region);
      await c.send(new PutItemCommand({ TableName: 'Tab', Item: { id: { S: `r-${region}` }, note: { S: 'spaces  and ünïcode' } } }));
      const got = await c.send(new GetItemCommand({ TableName: 'Tab', Key: { id: { S: `r-${region}` } } }));
      expect(got.Item?.note?.S).toBe('spaces  and ünïcode');
      c.destroy();
    }
  });

  it('a wrong secret gets InvalidSignatureException and writes nothing', async () => {
    const c = client(KEY_ID, 'not-the-secret');
    expect(await sdkError(c.send(new PutItemCommand({ TableName: 'Tab', Item: { id: { S: 'forged' } } })))).toEqual({
      name: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      status: 400,
    });
    expect(db.getItem({ TableName: 'Tab', Key: { id: { S: 'forged' } } }).Item).toBeUndefined();
    c.destroy();
  });

  it('an unknown access key gets UnrecognizedClientException', async () => {
    const c = client('AKIDUNKNOWN', SECRET);
    expect(await sdkError(c.send(new ListTablesCommand({})))).toEqual({
      name: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
      status: 400,
    });
    c.destroy();
  });
});

describe('SigV4 verification (raw requests)', () => {
  it('no Authorization header: MissingAuthenticationTokenException', async () => {
    const r = await send(server.port, { headers: UNSIGNED, body: '{}' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toEqual({ __type: 'com.amazon.coral.service#MissingAuthenticationTokenException', message: 'Request is missing Authentication Token' });
  });

  it('a malformed header: IncompleteSignatureException naming what is missing', async () => {
    const header = `AWS4-HMAC-SHA256 Credential=${KEY_ID}/20260101/us-east-1/dynamodb/aws4_request`;
    const r = await send(server.port, { headers: { ...UNSIGNED, authorization: header }, body: '{}' });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toEqual({
      __type: 'com.amazon.coral.service#IncompleteSignatureException',
      message: `Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=${header}`,
    });
  });

  it('a tampered body fails the signature check', async () => {
    // sign a request with the SDK, then replay its headers with another body
    let captured: Record<string, string> | undefined;
    const c = client(KEY_ID, SECRET);
    c.middlewareStack.add(
      (next) => async (args) => {
        captured = { ...(args.request as { headers: Record<string, string> }).headers };
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low' },
    );
    await c.send(new GetItemCommand({ TableName: 'Tab', Key: { id: { S: 'x' } } }));
    c.destroy();
    const headers = Object.fromEntries(Object.entries(captured!).map(([k, v]) => [k.toLowerCase(), v]));
    delete headers['content-length'];
    const ok = await call(server.port, 'GetItem', { TableName: 'Tab', Key: { id: { S: 'x' } } }, { headers });
    expect(ok.status, ok.text).toBe(200);
    const tampered = await call(server.port, 'GetItem', { TableName: 'Tab', Key: { id: { S: 'y' } } }, { headers });
    expect(JSON.parse(tampered.text).__type).toBe('com.amazon.coral.service#InvalidSignatureException');
  });

  it('a signature outside the clock skew is rejected as expired', async () => {
    const db2 = temp.open();
    const skewed = await startServer({ db: db2, port: 0, auth: { credentials: { [KEY_ID]: SECRET }, now: () => Date.now() + 60 * 60_000 } });
    try {
      const c = new DynamoDBClient({ endpoint: `http://127.0.0.1:${skewed.port}`, region: 'us-east-1', credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET }, maxAttempts: 1, systemClockOffset: 0 });
      const e = await sdkError(c.send(new ListTablesCommand({})));
      expect(e.name).toBe('InvalidSignatureException');
      expect(e.message).toMatch(/^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 15 min\.\)$/);
      c.destroy();
    } finally {
      await skewed.close();
    }
  });

  it('the health check needs no signature', async () => {
    const { send } = await import('./raw-http.js');
    const r = await send(server.port, { method: 'GET', path: '/' });
    expect(r.status).toBe(200);
  });
});
