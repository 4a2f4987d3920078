/**
 * CreateTable's index rules (spec §3.1, §4.1, §4.2): counts, projected-attribute total, LSIs on
 * hash-only tables, duplicate names and undefined key attributes, each with DynamoDB's message.
 */
import { describe, expect, it } from 'vitest';
import type { CreateTableInput, Projection } from '../../src/api/table-operations.js';
import { expectError, tableRequest, useTempDbs } from './temp-db.js';

const temp = useTempDbs('file');
const INVALID = 'One or more parameter values were invalid: ';

const lsi = (name: string, sortKey = 'ls', projection: Projection = { ProjectionType: 'KEYS_ONLY' }) => ({
  IndexName: name,
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }, { AttributeName: sortKey, KeyType: 'RANGE' as const }],
  Projection: projection,
});
const gsi = (name: string, projection: Projection = { ProjectionType: 'KEYS_ONLY' }) => ({
  IndexName: name,
  KeySchema: [{ AttributeName: 'gk', KeyType: 'HASH' as const }],
  Projection: projection,
});

function request(extra: Partial<CreateTableInput>, attributes: [string, 'S' | 'N'][] = [['ls', 'S'], ['gk', 'S']]): CreateTableInput {
  const base = tableRequest('Limits', ['pk', 'S'], ['sk', 'N']);
  return { ...base, AttributeDefinitions: [...base.AttributeDefinitions, ...attributes.map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }))], ...extra };
}

describe('index limits at CreateTable', () => {
  const db = () => temp.open();

  it('5 LSIs are accepted, 6 are refused', () => {
    const d = db();
    const six = Array.from({ length: 6 }, (_, i) => lsi(`lsi${i}`));
    expectError(() => d.createTable(request({ LocalSecondaryIndexes: six }, [['ls', 'S']])), 'ValidationException', `${INVALID}Number of LocalSecondaryIndexes exceeds per-table limit of 5`);
    d.createTable(request({ LocalSecondaryIndexes: six.slice(0, 5) }, [['ls', 'S']]));
    expect((d.describeTable({ TableName: 'Limits' }).Table as { LocalSecondaryIndexes: unknown[] }).LocalSecondaryIndexes).toHaveLength(5);
  });

  it('20 GSIs are accepted, 21 are refused', () => {
    const d = db();
    const many = Array.from({ length: 21 }, (_, i) => gsi(`gsi${i}`));
    expectError(() => d.createTable(request({ GlobalSecondaryIndexes: many }, [['gk', 'S']])), 'ValidationException', `${INVALID}GlobalSecondaryIndex count exceeds the per-table limit of 20`);
    d.createTable(request({ GlobalSecondaryIndexes: many.slice(0, 20) }, [['gk', 'S']]));
    expect((d.describeTable({ TableName: 'Limits' }).Table as { GlobalSecondaryIndexes: unknown[] }).GlobalSecondaryIndexes).toHaveLength(20);
    // UpdateTable cannot add a 21st either.
    expectError(
      () => d.updateTable({ TableName: 'Limits', GlobalSecondaryIndexUpdates: [{ Create: gsi('gsi20') }] }),
      'ValidationException',
      `${INVALID}GlobalSecondaryIndex count exceeds the per-table limit of 20`,
    );
  });

  it('100 projected non-key attributes across all indexes are accepted, 101 are refused (a name in two indexes counts twice)', () => {
    const d = db();
    const names = (from: number, n: number) => Array.from({ length: n }, (_, i) => `a${from + i}`);
    const include = (attrs: string[]): Projection => ({ ProjectionType: 'INCLUDE', NonKeyAttributes: attrs });
    // 5 indexes x 20 = 100; the LSI repeats names a GSI projects.
    const hundred = {
      LocalSecondaryIndexes: [lsi('lsi0', 'ls', include(names(0, 20)))],
      GlobalSecondaryIndexes: [1, 2, 3, 4].map((k) => gsi(`gsi${k}`, include(names(k === 1 ? 0 : k * 20, 20)))),
    };
    const over = { ...hundred, GlobalSecondaryIndexes: [...hundred.GlobalSecondaryIndexes, gsi('gsi5', include(['extra']))] };
    let err: Error | undefined;
    try {
      d.createTable(request(over));
    } catch (e) {
      err = e as Error;
    }
    expect(err?.name).toBe('ValidationException');
    // No exact wording in the spec: the message must at least name the limit and the count.
    expect(err!.message.startsWith(INVALID)).toBe(true);
    expect(err!.message).toMatch(/\b100\b/);
    expect(err!.message).toMatch(/\b101\b/);
    d.createTable(request(hundred));
  });

  it('refuses an LSI on a table without a sort key', () => {
    const d = db();
    const req = {
      ...tableRequest('HashOnly', ['pk', 'S']),
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'ls', AttributeType: 'S' }],
      LocalSecondaryIndexes: [lsi('lsi0')],
    } satisfies CreateTableInput;
    expectError(() => d.createTable(req), 'ValidationException', `${INVALID}Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex`);
  });

  it('refuses duplicate index names, across LSIs and GSIs', () => {
    const d = db();
    expectError(() => d.createTable(request({ GlobalSecondaryIndexes: [gsi('same'), gsi('same')] }, [['gk', 'S']])), 'ValidationException', `${INVALID}Duplicate index name: same`);
    expectError(() => d.createTable(request({ LocalSecondaryIndexes: [lsi('same')], GlobalSecondaryIndexes: [gsi('same')] })), 'ValidationException', `${INVALID}Duplicate index name: same`);
    expectError(() => d.createTable(request({ LocalSecondaryIndexes: [lsi('same'), lsi('same')] }, [['ls', 'S']])), 'ValidationException', `${INVALID}Duplicate index name: same`);
  });

  it('refuses index key attributes missing from AttributeDefinitions, and definitions no key uses', () => {
    const d = db();
    expectError(
      () => d.createTable(request({ GlobalSecondaryIndexes: [gsi('gsiG')] }, [])),
      'ValidationException',
      `${INVALID}Some index key attributes are not defined in AttributeDefinitions. Keys: [gk], AttributeDefinitions: [pk, sk]`,
    );
    expectError(
      () => d.createTable(request({ LocalSecondaryIndexes: [lsi('lsiL')] }, [])),
      'ValidationException',
      `${INVALID}Some index key attributes are not defined in AttributeDefinitions. Keys: [pk, ls], AttributeDefinitions: [pk, sk]`,
    );
    expectError(
      () => d.createTable(request({}, [['unused', 'S']])),
      'ValidationException',
      `${INVALID}Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions`,
    );
  });
});
