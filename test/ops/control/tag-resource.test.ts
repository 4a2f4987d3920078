/**
 * TagResource, UntagResource and ListTagsOfResource on table ARNs: tags persist in the catalog
 * (across a reopen), keys are replaced rather than repeated, and bad input gets DynamoDB's error
 * class and words, in DynamoDB's order (shape -> ARN -> content -> table -> limit).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();
const V = 'ValidationException';

function setup(path?: string): { db: Edgetable; arn: string } {
  const db = temp.open(path === undefined ? {} : { path });
  db.createTable({ ...tableRequest('Tbl', ['pk', 'S']), Tags: [{ Key: 'team', Value: 'edge' }] });
  return { db, arn: db.describeTable({ TableName: 'Tbl' }).Table.TableArn as string };
}

const tagList = (db: Edgetable, arn: string) => db.listTagsOfResource({ ResourceArn: arn }).Tags;

describe('tagging a table', () => {
  it('lists the tags given at CreateTable, adds new keys and replaces the value of a key it has', () => {
    const { db, arn } = setup();
    expect(tagList(db, arn)).toEqual([{ Key: 'team', Value: 'edge' }]);
    expect(db.tagResource({ ResourceArn: arn, Tags: [{ Key: 'env', Value: 'test' }, { Key: 'team', Value: 'core' }] })).toEqual({});
    expect(tagList(db, arn)).toEqual([
      { Key: 'team', Value: 'core' },
      { Key: 'env', Value: 'test' },
    ]);
  });

  it('untags the given keys; a key the table lacks is no error', () => {
    const { db, arn } = setup();
    db.tagResource({ ResourceArn: arn, Tags: [{ Key: 'env', Value: '' }] });
    expect(db.untagResource({ ResourceArn: arn, TagKeys: ['team', 'nothing'] })).toEqual({});
    expect(tagList(db, arn)).toEqual([{ Key: 'env', Value: '' }]);
  });

  it('accepts an ARN of any region and account that names the table', () => {
    const { db } = setup();
    const arn = 'arn:aws:dynamodb:eu-west-1:123456789012:table/Tbl';
    db.tagResource({ ResourceArn: arn, Tags: [{ Key: 'k', Value: 'v' }] });
    expect(tagList(db, arn)).toContainEqual({ Key: 'k', Value: 'v' });
  });

  it('persists tags in the catalog across a reopen, and drops them with the table', () => {
    const path = join(temp.dir(), 'db');
    const { db, arn } = setup(path);
    db.tagResource({ ResourceArn: arn, Tags: [{ Key: 'k', Value: 'v' }] });
    db.close();
    const again = temp.open({ path });
    expect(tagList(again, arn)).toEqual([
      { Key: 'team', Value: 'edge' },
      { Key: 'k', Value: 'v' },
    ]);
    again.deleteTable({ TableName: 'Tbl' });
    again.createTable(tableRequest('Tbl', ['pk', 'S']));
    expect(tagList(again, arn)).toEqual([]);
  });

  it('holds 50 tags and refuses the 51st, changing nothing', () => {
    const { db, arn } = setup();
    db.tagResource({ ResourceArn: arn, Tags: Array.from({ length: 49 }, (_, i) => ({ Key: `k${i}`, Value: 'v' })) });
    expect(tagList(db, arn)).toHaveLength(50);
    db.tagResource({ ResourceArn: arn, Tags: [{ Key: 'k0', Value: 'replaced' }] }); // a replacement adds nothing
    expectError(() => db.tagResource({ ResourceArn: arn, Tags: [{ Key: 'k49', Value: 'v' }] }), V, 'One or more parameter values were invalid: The number of tags exceeds the limit of 50');
    expect(tagList(db, arn)).toHaveLength(50);
  });
});

describe('tagging errors: exact class and message, nothing changed', () => {
  const missingArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/Nope';
  const cases: [string, (arn: string) => Record<string, unknown>, 'TagResource' | 'UntagResource' | 'ListTagsOfResource', string, string][] = [
    ['no ResourceArn', () => ({ Tags: [] }), 'TagResource', V, 'Invalid TableArn'],
    ['no ResourceArn (list)', () => ({}), 'ListTagsOfResource', V, 'Invalid TableArn'],
    ['no Tags', () => ({ ResourceArn: 'a:b:c:d:e:f/g' }), 'TagResource', V, "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null"],
    ['no TagKeys', (arn) => ({ ResourceArn: arn }), 'UntagResource', V, "1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null"],
    ['a malformed ARN', () => ({ ResourceArn: 'a:b:c:d:e:f/g', Tags: [] }), 'TagResource', V, 'Invalid TableArn: Invalid ResourceArn provided as input a:b:c:d:e:f/g'],
    ['a table name too short in the ARN', () => ({ ResourceArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/ab' }), 'ListTagsOfResource', V, 'Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:us-east-1:000000000000:table/ab'],
    ['an index ARN', (arn) => ({ ResourceArn: `${arn}/index/byX` }), 'ListTagsOfResource', V, `Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:ddblocal:000000000000:table/Tbl/index/byX`],
    ['an ARN of another service', () => ({ ResourceArn: 'arn:aws:s3:::bucket', Tags: [{ Key: 'a', Value: 'b' }] }), 'TagResource', 'AccessDeniedException', 'User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:TagResource on resource: arn:aws:s3:::bucket'],
    ['no tags to add', (arn) => ({ ResourceArn: arn, Tags: [] }), 'TagResource', V, 'Atleast one Tag needs to be provided as Input.'],
    ['no keys to remove', (arn) => ({ ResourceArn: arn, TagKeys: [] }), 'UntagResource', V, 'Atleast one Tag Key needs to be provided as Input.'],
    ['a table that does not exist', () => ({ ResourceArn: missingArn, Tags: [{ Key: 'a', Value: 'b' }] }), 'TagResource', 'ResourceNotFoundException', `Requested resource not found: ResourcArn: ${missingArn} not found`],
    ['a table that does not exist (untag)', () => ({ ResourceArn: missingArn, TagKeys: ['a'] }), 'UntagResource', 'ResourceNotFoundException', `Requested resource not found: ResourcArn: ${missingArn} not found`],
    // The service answers ListTagsOfResource of a missing table as IAM does, not as TagResource.
    ['a table that does not exist (list)', () => ({ ResourceArn: missingArn }), 'ListTagsOfResource', 'AccessDeniedException', `User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:ListTagsOfResource on resource: ${missingArn}`],
    ['a key over 128 characters', (arn) => ({ ResourceArn: arn, Tags: [{ Key: 'k'.repeat(129), Value: 'v' }] }), 'TagResource', V, `1 validation error detected: Value '${'k'.repeat(129)}' at 'tags.1.member.key' failed to satisfy constraint: Member must have length less than or equal to 128`],
    ['an empty key and a value over 256 characters', (arn) => ({ ResourceArn: arn, Tags: [{ Key: '', Value: 'v'.repeat(257) }] }), 'TagResource', V, `2 validation errors detected: Value '' at 'tags.1.member.key' failed to satisfy constraint: Member must have length greater than or equal to 1; Value '${'v'.repeat(257)}' at 'tags.1.member.value' failed to satisfy constraint: Member must have length less than or equal to 256`],
    ['a null tag', (arn) => ({ ResourceArn: arn, Tags: [{ Key: 'a', Value: 'b' }, null] }), 'TagResource', V, "1 validation error detected: Value null at 'tags.2.member' failed to satisfy constraint: Member must not be null"],
    ['a null tag key', (arn) => ({ ResourceArn: arn, TagKeys: ['a', null] }), 'UntagResource', V, "1 validation error detected: Value null at 'tagKeys.2.member' failed to satisfy constraint: Member must not be null"],
    ['a reserved aws: key', (arn) => ({ ResourceArn: arn, Tags: [{ Key: 'aws:owner', Value: 'v' }] }), 'TagResource', V, 'One or more parameter values were invalid: Tag keys beginning with aws: are reserved: aws:owner'],
    ['a Tags value that is not a list', (arn) => ({ ResourceArn: arn, Tags: { Key: 'a' } }), 'TagResource', 'SerializationException', 'Start of structure or map found where not expected'],
    ['a tag Value that is a number', (arn) => ({ ResourceArn: arn, Tags: [{ Key: 'a', Value: 1 }] }), 'TagResource', 'SerializationException', 'NUMBER_VALUE cannot be converted to String'],
  ];

  it.each(cases)('%s', (_what, request, operation, name, message) => {
    const { db, arn } = setup();
    expectError(() => db.execute(operation, request(arn)), name, message);
    expect(tagList(db, arn)).toEqual([{ Key: 'team', Value: 'edge' }]);
  });
});
