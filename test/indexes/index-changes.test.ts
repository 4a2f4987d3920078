/**
 * indexChange against spec §5.4's table: which entries leave and enter an index, and the write
 * units charged, for every kind of base write; plus indexEntryFor's sparse and type rules (§4.4).
 */
import { describe, expect, it } from 'vitest';
import { indexChange } from '../../src/indexes/index-changes.js';
import { indexEntryFor } from '../../src/indexes/index-entry.js';
import type { SecondaryIndex } from '../../src/indexes/secondary-index.js';
import type { Item } from '../../src/model/attribute-value.js';
import type { PrimaryKeySchema } from '../../src/model/key-schema.js';

const table: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'N' } };
const gsi: SecondaryIndex = {
  kind: 'global',
  IndexName: 'ByG',
  keySchema: { partitionKey: { name: 'g', type: 'S' }, sortKey: { name: 'gs', type: 'N' } },
  Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['p'] },
  IndexStatus: 'ACTIVE',
};
const base = (extra: Item): Item => ({ pk: { S: 'a' }, sk: { N: '1' }, ...extra });
const big = { S: 'x'.repeat(1500) };

describe('indexChange (spec §5.4)', () => {
  it.each([
    ['not in the index before or after', base({}), base({ q: { S: 'x' } }), undefined],
    ['enters', undefined, base({ g: { S: 'u' }, gs: { N: '1' } }), { remove: false, put: true, units: 1 }],
    ['leaves (delete)', base({ g: { S: 'u' }, gs: { N: '1' } }), undefined, { remove: true, put: false, units: 1 }],
    ['leaves (key attribute removed)', base({ g: { S: 'u' }, gs: { N: '1' } }), base({ g: { S: 'u' } }), { remove: true, put: false, units: 1 }],
    ['key changes: delete + put, each rounded', base({ g: { S: 'u' }, gs: { N: '1' }, p: big }), base({ g: { S: 'v' }, gs: { N: '1' }, p: { S: 'y' } }), { remove: true, put: true, units: 2 + 1 }],
    ['projected attribute changes: one put sized on the larger entry', base({ g: { S: 'u' }, gs: { N: '1' }, p: big }), base({ g: { S: 'u' }, gs: { N: '1' }, p: { S: 'y' } }), { remove: true, put: true, units: 2 }],
    ['only a non-projected attribute changes', base({ g: { S: 'u' }, gs: { N: '1' }, q: { S: '1' } }), base({ g: { S: 'u' }, gs: { N: '1' }, q: { S: '2' } }), undefined],
    ['identical overwrite, set order ignored', base({ g: { S: 'u' }, gs: { N: '1' }, p: { SS: ['a', 'b'] } }), base({ g: { S: 'u' }, gs: { N: '1' }, p: { SS: ['b', 'a'] } }), undefined],
  ] as const)('%s', (_, before, after, want) => {
    const change = indexChange(gsi, table, before, after);
    if (want === undefined) {
      expect(change).toBeUndefined();
      return;
    }
    expect({ remove: change?.remove !== undefined, put: change?.put !== undefined, units: change?.units }).toEqual(want);
  });

  it('a same-key overwrite names the old entry as removed, so put.size - remove.size is the byte change', () => {
    const change = indexChange(gsi, table, base({ g: { S: 'u' }, gs: { N: '1' }, p: big }), base({ g: { S: 'u' }, gs: { N: '1' }, p: { S: 'y' } }))!;
    expect(change.remove!.key).toEqual(change.put!.key);
    expect(change.put!.size - change.remove!.size).toBe(1 - 1500);
  });
});

describe('indexEntryFor (spec §4.4)', () => {
  it('leaves out items missing any index key attribute (sparse)', () => {
    expect(indexEntryFor(gsi, table, base({ g: { S: 'u' } }))).toBeUndefined();
    expect(indexEntryFor(gsi, table, base({ gs: { N: '1' } }))).toBeUndefined();
  });

  it('projects keys plus INCLUDE attributes', () => {
    const entry = indexEntryFor(gsi, table, base({ g: { S: 'u' }, gs: { N: '1' }, p: { N: '5' }, q: { N: '6' } }))!;
    expect(Object.keys(entry.item).sort()).toEqual(['g', 'gs', 'p', 'pk', 'sk']);
  });

  it('rejects a wrong-typed key attribute even when the other key attribute is missing', () => {
    expect(() => indexEntryFor(gsi, table, base({ gs: { S: 'one' } }))).toThrow(
      'One or more parameter values were invalid: Type mismatch for Index Key gs Expected: N Actual: S IndexName: ByG',
    );
    expect(indexEntryFor(gsi, table, base({ gs: { S: 'one' } }), 'skip')).toBeUndefined();
  });

  it('rejects empty string key values with DynamoDB message', () => {
    expect(() => indexEntryFor(gsi, table, base({ g: { S: '' }, gs: { N: '1' } }))).toThrow(
      'One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: ByG, IndexKey: g',
    );
  });
});
