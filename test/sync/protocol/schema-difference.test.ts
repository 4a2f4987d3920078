import { describe, expect, it } from 'vitest';
import { schemaDifference } from '../../../src/sync/protocol/schema-difference.js';
import type { TableSchema } from '../../../src/sync/protocol/table-schema.js';

const base: TableSchema = {
  version: 1,
  TableName: 'WorkOrders',
  KeySchema: [
    { AttributeName: 'site', KeyType: 'HASH' },
    { AttributeName: 'order', KeyType: 'RANGE' },
  ],
  AttributeDefinitions: [
    { AttributeName: 'site', AttributeType: 'S' },
    { AttributeName: 'order', AttributeType: 'N' },
    { AttributeName: 'tech', AttributeType: 'S' },
  ],
  GlobalSecondaryIndexes: [
    { IndexName: 'ByTech', KeySchema: [{ AttributeName: 'tech', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['a', 'b'] } },
  ],
};

const withChanges = (changes: Partial<TableSchema>): TableSchema => ({ ...base, ...changes });

describe('schemaDifference', () => {
  it('is undefined for the same definition, whatever the order of NonKeyAttributes', () => {
    expect(schemaDifference(base, base)).toBeUndefined();
    const reordered = withChanges({
      GlobalSecondaryIndexes: [{ IndexName: 'ByTech', KeySchema: [{ AttributeName: 'tech', KeyType: 'HASH' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['b', 'a'] } }],
    });
    expect(schemaDifference(base, reordered)).toBeUndefined();
  });

  it('names a different key schema: other attributes', () => {
    const device = withChanges({ KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, { AttributeName: 'tech', AttributeType: 'S' }] });
    expect(schemaDifference(base, device)).toBe("key schema differs: the hub's WorkOrders has site (S, HASH), order (N, RANGE), this device's has id (S, HASH)");
  });

  it('names a different key schema: the same names with another type', () => {
    const device = withChanges({
      AttributeDefinitions: [
        { AttributeName: 'site', AttributeType: 'S' },
        { AttributeName: 'order', AttributeType: 'S' },
        { AttributeName: 'tech', AttributeType: 'S' },
      ],
    });
    expect(schemaDifference(base, device)).toBe("key schema differs: the hub's WorkOrders has site (S, HASH), order (N, RANGE), this device's has site (S, HASH), order (S, RANGE)");
  });

  it('names indexes on one side only and indexes that differ', () => {
    const device = withChanges({
      GlobalSecondaryIndexes: [{ IndexName: 'ByTech', KeySchema: [{ AttributeName: 'tech', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
      LocalSecondaryIndexes: [
        { IndexName: 'ByTech2', KeySchema: [{ AttributeName: 'site', KeyType: 'HASH' }, { AttributeName: 'tech', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
      ],
    });
    expect(schemaDifference(base, device)).toBe(
      'index definitions differ: local index ByTech2 only on this device (key site (S, HASH), tech (S, RANGE), projection KEYS_ONLY); ' +
        "global index ByTech differs: the hub's has key tech (S, HASH), projection INCLUDE a,b, this device's has key tech (S, HASH), projection ALL",
    );
    const { GlobalSecondaryIndexes: _g, ...noIndexes } = base;
    expect(schemaDifference(base, noIndexes)).toBe('index definitions differ: global index ByTech only at the hub (key tech (S, HASH), projection INCLUDE a,b)');
  });

  it('ignores attribute definitions of attributes no key uses', () => {
    const device = withChanges({ AttributeDefinitions: [...base.AttributeDefinitions, { AttributeName: 'unused', AttributeType: 'B' }] });
    expect(schemaDifference(base, device)).toBeUndefined();
  });
});
