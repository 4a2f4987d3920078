/**
 * UpdateTable reads every member in its parse step, but reports each refusal where DynamoDB meets
 * it: an unknown table first, then the index updates, the stream, the throughput and deletion
 * protection in that order; AttributeDefinitions only for a Create action, the only one that
 * reads them.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();
let db: Edgetable;

const S = 'SerializationException';
const V = 'ValidationException';
const units = (n: number) => ({ ReadCapacityUnits: n, WriteCapacityUnits: n });
const updateByG = { Update: { IndexName: 'ByG', ProvisionedThroughput: units(3) } };
const createByH = (over: Record<string, unknown> = {}) => ({
  Create: { IndexName: 'ByH', KeySchema: [{ AttributeName: 'h', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ProvisionedThroughput: units(1), ...over },
});

beforeEach(() => {
  db = temp.open();
  db.createTable({
    TableName: 'Tab',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'g', AttributeType: 'S' }],
    ProvisionedThroughput: units(2),
    GlobalSecondaryIndexes: [{ IndexName: 'ByG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' }, ProvisionedThroughput: units(2) }],
  });
});

describe('UpdateTable refusals at their place in the order', () => {
  it.each([
    ['a null StreamSpecification', { StreamSpecification: null }, V, 'One or more parameter values were invalid: StreamSpecification must be an object'],
    ['a null StreamViewType', { StreamSpecification: { StreamEnabled: true, StreamViewType: null } }, V, "1 validation error detected: Value 'null' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY]"],
    ['the stream before the throughput and deletion protection', { GlobalSecondaryIndexUpdates: [updateByG], StreamSpecification: null, ProvisionedThroughput: null, DeletionProtectionEnabled: null }, V, 'One or more parameter values were invalid: StreamSpecification must be an object'],
    ['the throughput before deletion protection', { ProvisionedThroughput: null, DeletionProtectionEnabled: null }, S, 'Unexpected value type for ProvisionedThroughput: expected a structure'],
    ['a null DeletionProtectionEnabled', { DeletionProtectionEnabled: null }, S, 'Unexpected value type for DeletionProtectionEnabled: expected a boolean'],
    ['a null list of index updates', { GlobalSecondaryIndexUpdates: null }, S, 'Unexpected value type for GlobalSecondaryIndexUpdates: expected a list'],
    ['an index update without an action, after a valid one', { GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'ByG' } }, {}] }, V, 'One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null'],
    ['an Update action before a Create listed after it', { AttributeDefinitions: [{ AttributeName: 'h', AttributeType: 'N' }], GlobalSecondaryIndexUpdates: [{ Update: { IndexName: 'ByG', ProvisionedThroughput: null } }, createByH({ KeySchema: [null] })] }, S, 'Unexpected value type for ProvisionedThroughput: expected a structure'],
    ['a Create with a null key schema element', { AttributeDefinitions: [{ AttributeName: 'h', AttributeType: 'N' }], GlobalSecondaryIndexUpdates: [createByH({ KeySchema: [null] })] }, S, 'Unexpected value type for globalSecondaryIndexes.1.member.keySchema.1.member: expected a structure'],
    ['a Create with null AttributeDefinitions', { AttributeDefinitions: null, GlobalSecondaryIndexUpdates: [createByH()] }, S, 'Unexpected value type for AttributeDefinitions: expected a list'],
    ['a Create whose index name is taken, before its projection', { AttributeDefinitions: [{ AttributeName: 'h', AttributeType: 'N' }], GlobalSecondaryIndexUpdates: [createByH({ IndexName: 'ByG', Projection: { ProjectionType: null } })] }, V, 'One or more parameter values were invalid: Duplicate index name: ByG'],
  ])('%s: after the unknown table, then in its place', (_what, members, name, message) => {
    expectError(() => db.updateTable({ TableName: 'Missing', ...members } as never), 'ResourceNotFoundException', 'Requested resource not found: Table: Missing not found');
    expectError(() => db.updateTable({ TableName: 'Tab', ...members } as never), name, message);
  });

  it('reads AttributeDefinitions only for a Create: a null one beside an Update changes nothing', () => {
    const out = db.updateTable({ TableName: 'Tab', AttributeDefinitions: null, GlobalSecondaryIndexUpdates: [updateByG] } as never);
    expect(out.TableDescription.GlobalSecondaryIndexes?.[0]?.ProvisionedThroughput).toMatchObject(units(3));
    expect(out.TableDescription.AttributeDefinitions).toEqual([{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'g', AttributeType: 'S' }]);
  });
});
