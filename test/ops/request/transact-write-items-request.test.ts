/**
 * TransactWriteItems' parse: each action becomes one kind of a discriminated union with its
 * values converted and its expressions compiled, the whole request frozen; the token carries
 * the digest of what the transaction writes, blind to member order and to the response options.
 * Every request-only refusal is the parse's, before any table is looked up.
 */
import { describe, expect, it } from 'vitest';
import { parseTransactWriteItemsRequest } from '../../../src/ops/request/transact-write-items-request.js';

const put = { Put: { TableName: 'Tab', Item: { pk: { S: 'a' }, n: { N: '1' } }, ConditionExpression: 'attribute_not_exists(pk)' } };
const update = { Update: { TableName: 'Tab', Key: { pk: { S: 'b' } }, UpdateExpression: 'SET n = :one', ExpressionAttributeValues: { ':one': { N: '1' } } } };
const del = { Delete: { TableName: 'Tab', Key: { pk: { S: 'c' } }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } };
const check = { ConditionCheck: { TableName: 'Tab', Key: { pk: { S: 'd' } }, ConditionExpression: 'attribute_exists(pk)' } };

describe('parseTransactWriteItemsRequest', () => {
  it('parses each action into its kind, values converted and expressions compiled, in request order', () => {
    const req = parseTransactWriteItemsRequest({ TransactItems: [put, update, del, check], ReturnItemCollectionMetrics: 'SIZE' });
    expect(req.actions.map((a) => a.kind)).toEqual(['Put', 'Update', 'Delete', 'ConditionCheck']);
    const [p, u, d, c] = req.actions;
    expect(p!.kind === 'Put' && p!.item).toEqual({ pk: { S: 'a' }, n: { N: '1' } });
    expect(p!.kind === 'Put' && p!.condition).toBeTruthy();
    expect(u!.kind === 'Update' && u!.update).toBeTruthy();
    expect(u!.kind === 'Update' && u!.condition).toBeUndefined();
    expect(d!.kind === 'Delete' && d!.key).toEqual({ pk: { S: 'c' } });
    expect(d!.returnOnFailure).toBe('ALL_OLD');
    expect(u!.returnOnFailure).toBe('NONE');
    expect(c!.kind === 'ConditionCheck' && c!.condition).toBeTruthy();
    expect(req.capacityMode).toBe('NONE');
    expect(req.itemCollectionMetrics).toBe(true);
    expect(req.clientRequestToken).toBeUndefined();
  });

  it('freezes the request and each action', () => {
    const req = parseTransactWriteItemsRequest({ TransactItems: [put, del] });
    expect(Object.isFrozen(req)).toBe(true);
    expect(Object.isFrozen(req.actions)).toBe(true);
    for (const action of req.actions) expect(Object.isFrozen(action)).toBe(true);
  });

  it('digests the token with what the transaction writes, not the member order nor the response options', () => {
    const digest = (request: Record<string, unknown>) => parseTransactWriteItemsRequest(request).clientRequestToken!.digest;
    const base = digest({ TransactItems: [put, del], ClientRequestToken: 't1' });
    expect(digest({ ClientRequestToken: 't2', ReturnConsumedCapacity: 'TOTAL', ReturnItemCollectionMetrics: 'SIZE', TransactItems: [put, del] })).toEqual(base);
    expect(digest({ TransactItems: [{ Put: { ConditionExpression: put.Put.ConditionExpression, Item: put.Put.Item, TableName: 'Tab' } }, del], ClientRequestToken: 't1' })).toEqual(base);
    expect(digest({ TransactItems: [del, put], ClientRequestToken: 't1' })).not.toEqual(base);
    expect(parseTransactWriteItemsRequest({ TransactItems: [put], ClientRequestToken: 't1' }).clientRequestToken!.token).toBe('t1');
  });

  it('refuses a malformed expression of a later action before any table is known', () => {
    const bad = { Update: { TableName: 'Missing', Key: { pk: { S: 'x' } }, UpdateExpression: 'SET' } };
    expect(() => parseTransactWriteItemsRequest({ TransactItems: [put, bad] })).toThrow(/Invalid UpdateExpression: Syntax error/);
  });

  it('refuses an element with no action, after the constraint errors of the whole request', () => {
    expect(() => parseTransactWriteItemsRequest({ TransactItems: [{}] })).toThrow(/TransactWriteRequest should contain Delete or Put or Update or ConditionCheck/);
    expect(() => parseTransactWriteItemsRequest({ TransactItems: [{}], ClientRequestToken: '' })).toThrow(/at 'clientRequestToken' failed to satisfy constraint/);
  });
});
