/**
 * CreateTable's messages for key schemas and attribute definitions, exact, in DynamoDB's order
 * (shape constraints first, all at once; then undefined key attributes, repeated names, key types,
 * and the attribute count).
 */
import { describe, it } from 'vitest';
import { buildTableDefinition } from '../../../src/ops/request/create-table-rules.js';
import { expectError } from '../temp-db.js';

const V = 'ValidationException';
const def = (name: string, type = 'S') => ({ AttributeName: name, AttributeType: type });
const key = (name: string, type = 'HASH') => ({ AttributeName: name, KeyType: type });
const request = (defs: unknown[], keys: unknown[]) => ({ TableName: 'Tbl', AttributeDefinitions: defs, KeySchema: keys, BillingMode: 'PAY_PER_REQUEST' });

describe('CreateTable key schema messages', () => {
  it.each([
    ['a repeated key attribute with one definition', request([def('a')], [key('a'), key('a', 'RANGE')]), 'Invalid KeySchema: Some index key attribute have no definition'],
    ['a repeated key attribute with two definitions', request([def('a'), def('b')], [key('a'), key('a', 'RANGE')]), 'Both the Hash Key and the Range Key element in the KeySchema have the same name'],
    ['a range key without definition', request([def('a')], [key('a'), key('b', 'RANGE')]), 'Invalid KeySchema: Some index key attribute have no definition'],
    ['a hash key without definition', request([def('b')], [key('a')]), 'One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a], AttributeDefinitions: [b]'],
    ['a first element that is not HASH', request([def('a'), def('b')], [key('a', 'RANGE'), key('b', 'HASH')]), 'Invalid KeySchema: The first KeySchemaElement is not a HASH key type'],
    ['a second element that is not RANGE', request([def('a'), def('b')], [key('a'), key('b', 'HASH')]), 'Invalid KeySchema: The second KeySchemaElement is not a RANGE key type'],
    ['a definition no key uses', request([def('a'), def('b')], [key('a')]), 'One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions'],
    [
      'more than two key elements',
      request([def('a'), def('b'), def('c')], [key('a'), key('b', 'RANGE'), key('c', 'RANGE')]),
      "1 validation error detected: Value '[KeySchemaElement(attributeName=a, keyType=HASH), KeySchemaElement(attributeName=b, keyType=RANGE), KeySchemaElement(attributeName=c, keyType=RANGE)]' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2",
    ],
    ['an invalid attribute type', request([def('a', 'BOOL')], [key('a')]), "1 validation error detected: Value 'BOOL' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]"],
    [
      'an invalid key type and attribute type together',
      request([def('a', 'SS')], [key('a', 'PRIMARY')]),
      "2 validation errors detected: Value 'SS' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]; Value 'PRIMARY' at 'keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]",
    ],
    ['an empty key schema', request([def('a')], []), "1 validation error detected: Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length greater than or equal to 1"],
  ])('%s', (_what, req, message) => {
    expectError(() => buildTableDefinition(req, { now: 0 }), V, message);
  });
});

describe('CreateTable index constraint order', () => {
  // GSI errors come before LSI errors whichever the request lists first (2026 captures).
  const base = { ...request([def('pk'), def('sk')], [key('pk'), key('sk', 'RANGE')]) };
  const lsi = (IndexName: string) => ({ IndexName, KeySchema: [key('pk'), key('lr', 'RANGE')], Projection: { ProjectionType: 'ALL' } });
  const gsi = (IndexName: string) => ({ IndexName, KeySchema: [key('gh')], Projection: { ProjectionType: 'ALL' } });
  const short = (name: string, member: string) => `Value '${name}' at '${member}.1.member.indexName' failed to satisfy constraint: Member must have length greater than or equal to 3`;
  it.each([
    ['the LSI listed first', { LocalSecondaryIndexes: [lsi('l1')], GlobalSecondaryIndexes: [gsi('g1')] }, 'g1', 'l1'],
    ['an LSI name that sorts first', { GlobalSecondaryIndexes: [gsi('zz')], LocalSecondaryIndexes: [lsi('aa')] }, 'zz', 'aa'],
  ])('lists the GSI error first with %s', (_what, indexes, g, l) => {
    expectError(() => buildTableDefinition({ ...base, ...indexes }, { now: 0 }), V, `2 validation errors detected: ${short(g, 'globalSecondaryIndexes')}; ${short(l, 'localSecondaryIndexes')}`);
  });
});

describe('CreateTable refusals of its converted members, at their place in the order', () => {
  const S = 'SerializationException';
  const base = { TableName: 'Tbl', KeySchema: [key('pk'), key('sk', 'RANGE')], AttributeDefinitions: [def('pk'), def('sk'), def('g'), def('l', 'N')], ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } };
  const lsi = (over: Record<string, unknown> = {}) => ({ IndexName: 'lsi', KeySchema: [key('pk'), key('l', 'RANGE')], Projection: { ProjectionType: 'ALL' }, ...over });
  const gsi = (over: Record<string, unknown> = {}) => ({ IndexName: 'gsi', KeySchema: [key('g')], Projection: { ProjectionType: 'ALL' }, ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 }, ...over });
  const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ Key: `k${i}`, Value: 'v' }));
  it.each([
    ['the table throughput before the indexes and tags', { ProvisionedThroughput: null, GlobalSecondaryIndexes: [gsi({ ProvisionedThroughput: null })], Tags: null }, S, 'Unexpected value type for ProvisionedThroughput: expected a structure'],
    ['an LSI projection before a null GSI (LSIs are read first)', { LocalSecondaryIndexes: [lsi({ Projection: { ProjectionType: null } })], GlobalSecondaryIndexes: [null] }, V, "1 validation error detected: Value 'null' at 'localSecondaryIndexes.1.member.projection.projectionType' failed to satisfy constraint: Member must satisfy enum value set: [ALL, KEYS_ONLY, INCLUDE]"],
    ['an LSI throughput before its projection', { LocalSecondaryIndexes: [lsi({ ProvisionedThroughput: {}, Projection: { ProjectionType: null } })] }, V, 'One or more parameter values were invalid: Local secondary indexes do not support ProvisionedThroughput: lsi'],
    ['an index key schema before its projection', { AttributeDefinitions: [def('pk'), def('sk')], GlobalSecondaryIndexes: [gsi({ Projection: { ProjectionType: null } })] }, V, 'One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [g], AttributeDefinitions: [pk, sk]'],
    ['a GSI projection before its throughput', { AttributeDefinitions: [def('pk'), def('sk'), def('g')], GlobalSecondaryIndexes: [gsi({ Projection: { ProjectionType: 'INCLUDE' }, ProvisionedThroughput: null })] }, V, 'One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified'],
    ['a GSI throughput under PAY_PER_REQUEST before its units', { BillingMode: 'PAY_PER_REQUEST', ProvisionedThroughput: undefined, AttributeDefinitions: [def('pk'), def('sk'), def('g')], GlobalSecondaryIndexes: [gsi({ ProvisionedThroughput: { ReadCapacityUnits: Number.NaN, WriteCapacityUnits: 1 } })] }, V, 'One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: gsi when BillingMode is PAY_PER_REQUEST'],
    ['a stream before PartitionCount', { AttributeDefinitions: [def('pk'), def('sk')], StreamSpecification: { StreamEnabled: true }, PartitionCount: 'x' }, V, 'One or more parameter values were invalid: You must specify a StreamViewType when enabling a stream'],
    ['deletion protection before tags', { AttributeDefinitions: [def('pk'), def('sk')], DeletionProtectionEnabled: null, Tags: null }, S, 'Unexpected value type for DeletionProtectionEnabled: expected a boolean'],
    ['the tag count before a null tag', { AttributeDefinitions: [def('pk'), def('sk')], Tags: [null, ...tags(50)] }, V, 'One or more parameter values were invalid: The number of tags exceeds the limit of 50'],
    ['a null tag', { AttributeDefinitions: [def('pk'), def('sk')], Tags: [...tags(2), null] }, S, 'Unexpected value type for Tags.3: expected a structure'],
  ])('%s', (_what, members, name, message) => {
    expectError(() => buildTableDefinition({ ...base, ...members }, { now: 0 }), name, message);
  });
});
