/**
 * Scan over a 100,000-item table spread across 8 partitions (spec §6.4, §6.3): Limit paging,
 * parallel segments, the 1 MB page cut, Select COUNT, FilterExpression (Count vs ScannedCount)
 * and ProjectionExpression.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { partitionHash } from '../../../src/codec/partition-hash.js';
import { expectError, scanAll, tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs('file');
const TOTAL = 100_000;
let db: Edgetable;

type ScanPage = { Items?: Record<string, { S?: string; N?: string }>[]; Count: number; ScannedCount: number; LastEvaluatedKey?: Record<string, unknown>; ConsumedCapacity?: unknown };

const idOf = (i: number) => `item-${i}`;

beforeAll(() => {
  db = temp.open();
  db.createTable(tableRequest('Big', ['id', 'S'], undefined, 8));
  for (let start = 0; start < TOTAL; start += 25) {
    const requests = [];
    for (let i = start; i < start + 25; i++) {
      requests.push({ PutRequest: { Item: { id: { S: idOf(i) }, n: { N: String(i % 10) }, tag: { S: `t${i % 3}` }, extra: { S: 'x' } } } });
    }
    const result = db.batchWriteItem({ RequestItems: { Big: requests } });
    if (Object.keys(result.UnprocessedItems).length > 0) throw new Error('unprocessed items');
  }
}, 60_000);

/** All pages of a scan, following LastEvaluatedKey. */
function pages(request: Record<string, unknown>): ScanPage[] {
  const out: ScanPage[] = [];
  let start: unknown;
  for (;;) {
    const page = db.execute('Scan', { TableName: 'Big', ...request, ...(start ? { ExclusiveStartKey: start } : {}) }) as ScanPage;
    out.push(page);
    if (!page.LastEvaluatedKey) return out;
    start = page.LastEvaluatedKey;
  }
}

function expectEveryItemOnce(ids: string[]): void {
  expect(ids).toHaveLength(TOTAL);
  const unique = new Set(ids);
  expect(unique.size).toBe(TOTAL);
  for (let i = 0; i < TOTAL; i += 997) expect(unique.has(idOf(i))).toBe(true);
}

describe('Scan over 100,000 items in 8 partitions', () => {
  it('holds every item', () => {
    expect(db.describeTable({ TableName: 'Big' }).Table.ItemCount).toBe(TOTAL);
  });

  it('paging with Limit returns every item exactly once', () => {
    const all = pages({ Limit: 1000 });
    expect(all).toHaveLength(TOTAL / 1000 + 1); // the last full page still carries a LastEvaluatedKey
    for (const page of all.slice(0, -1)) {
      expect(page.Count).toBe(1000);
      expect(page.ScannedCount).toBe(1000);
      expect(page.LastEvaluatedKey).toEqual({ id: page.Items![999]!.id });
    }
    expect(all.at(-1)!.Count).toBe(0);
    expectEveryItemOnce(all.flatMap((p) => p.Items!.map((i) => i.id!.S!)));
  });

  it('4 parallel segments together return exactly the table, with no overlap', () => {
    const bySegment = [0, 1, 2, 3].map((segment) => pages({ Segment: segment, TotalSegments: 4, Limit: 5000 }).flatMap((p) => p.Items!.map((i) => i.id!.S!)));
    bySegment.forEach((ids, segment) => {
      expect(ids.length).toBeGreaterThan(TOTAL / 8);
      // Segments are hash ranges: floor(hash * TotalSegments / 2^32) = Segment (spec §6.4).
      for (const id of ids.slice(0, 200)) expect(Math.floor((partitionHash({ S: id }) * 4) / 2 ** 32)).toBe(segment);
    });
    expectEveryItemOnce(bySegment.flat());
  });

  it('a continuation key from another segment is refused', () => {
    const first = db.scan({ TableName: 'Big', Segment: 0, TotalSegments: 4, Limit: 1 }) as ScanPage;
    expect(() => db.execute('Scan', { TableName: 'Big', Segment: 1, TotalSegments: 4, ExclusiveStartKey: first.LastEvaluatedKey })).toThrow(
      'The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: 4 Segment: 1',
    );
  });

  it('Select COUNT counts without items, page by page', () => {
    const all = pages({ Select: 'COUNT' });
    expect(all.length).toBeGreaterThan(1); // ~4 MB of items: several 1 MB pages
    for (const page of all) {
      expect(page.Items).toBeUndefined();
      expect(page.Count).toBe(page.ScannedCount);
    }
    expect(all.reduce((n, p) => n + p.Count, 0)).toBe(TOTAL);
  });

  it('FilterExpression: Count after the filter, ScannedCount before it', () => {
    const all = pages({ Limit: 4000, FilterExpression: 'n < :k AND tag = :t', ExpressionAttributeValues: { ':k': { N: '3' }, ':t': { S: 't1' } } });
    for (const page of all.slice(0, -1)) expect(page.ScannedCount).toBe(4000);
    const expected = Array.from({ length: TOTAL }, (_, i) => i).filter((i) => i % 10 < 3 && i % 3 === 1);
    expect(all.reduce((n, p) => n + p.ScannedCount, 0)).toBe(TOTAL);
    expect(all.reduce((n, p) => n + p.Count, 0)).toBe(expected.length);
    const ids = all.flatMap((p) => p.Items!.map((i) => i.id!.S!)).sort();
    expect(ids).toEqual(expected.map(idOf).sort());
  });

  it('ProjectionExpression returns only the named attributes', () => {
    const page = db.scan({ TableName: 'Big', Limit: 50, ProjectionExpression: '#t, n', ExpressionAttributeNames: { '#t': 'tag' } }) as ScanPage;
    expect(page.Items).toHaveLength(50);
    for (const item of page.Items!) expect(Object.keys(item).sort()).toEqual(['n', 'tag']);
    // The LastEvaluatedKey still names the table key even though id was not projected.
    expect(Object.keys(page.LastEvaluatedKey!)).toEqual(['id']);
  });
});

describe('the 1 MB page cut', () => {
  const ITEM_BYTES = 100 * 1024; // 102,400 bytes by the spec formula
  const COUNT = 25;

  it('stops a page once 1 MB has been read and carries a LastEvaluatedKey', () => {
    const big = temp.open();
    big.createTable(tableRequest('Blobs', ['id', 'S'], undefined, 3));
    for (let i = 0; i < COUNT; i++) {
      const id = `b${String(i).padStart(2, '0')}`; // 'id' (2) + 3 bytes
      big.putItem({ TableName: 'Blobs', Item: { id: { S: id }, d: { B: new Uint8Array(ITEM_BYTES - 5 - 1).fill(i) } } });
    }
    expect(big.describeTable({ TableName: 'Blobs' }).Table.TableSizeBytes).toBe(COUNT * ITEM_BYTES);

    const first = big.scan({ TableName: 'Blobs', ReturnConsumedCapacity: 'TOTAL' }) as ScanPage;
    // 10 items are 1,024,000 bytes (< 1 MB); the 11th reaches 1,126,400 bytes and ends the page.
    expect(first.ScannedCount).toBe(11);
    expect(first.Count).toBe(11);
    expect(first.LastEvaluatedKey).toEqual({ id: first.Items![10]!.id });
    // One rounding over the page: ceil(1,126,400 / 4,096) = 275 units, halved for eventual reads.
    expect(first.ConsumedCapacity).toEqual({ TableName: 'Blobs', CapacityUnits: 137.5 });

    const all = scanAll(big, { TableName: 'Blobs' });
    expect(all.map((i) => (i.id as { S: string }).S).sort()).toEqual(Array.from({ length: COUNT }, (_, i) => `b${String(i).padStart(2, '0')}`));
    for (const item of all) expect(Buffer.from((item.d as { B: string }).B, 'base64').length).toBe(ITEM_BYTES - 6);

    // COUNT pages are cut at the same place: Select never changes what is read.
    const counted = big.scan({ TableName: 'Blobs', Select: 'COUNT' }) as ScanPage;
    expect(counted.ScannedCount).toBe(11);
    expect(counted.LastEvaluatedKey).toEqual(first.LastEvaluatedKey);
  });
});

describe('parallel segments that do not line up with partitions', () => {
  it.each([
    [3, 5],
    [7, 5],
    [16, 3],
  ])('%i segments over %i partitions, paged with small Limits, cover the table exactly once', (total, partitions) => {
    const small = temp.open();
    small.createTable(tableRequest('Odd', ['pk', 'S'], ['sk', 'N'], partitions));
    const expected: string[] = [];
    for (let start = 0; start < 2000; start += 25) {
      const requests = [];
      for (let i = start; i < start + 25; i++) {
        const pk = `p${i % 400}`;
        requests.push({ PutRequest: { Item: { pk: { S: pk }, sk: { N: String(i) } } } });
        expected.push(`${pk}/${i}`);
      }
      small.batchWriteItem({ RequestItems: { Odd: requests } });
    }
    const seen: string[] = [];
    for (let segment = 0; segment < total; segment++) {
      const items = scanAll(small, { TableName: 'Odd', Segment: segment, TotalSegments: total, Limit: 37 });
      const pks = new Set(items.map((i) => (i.pk as { S: string }).S));
      for (const pk of pks) expect(Math.floor((partitionHash({ S: pk }) * total) / 2 ** 32)).toBe(segment);
      seen.push(...items.map((i) => `${(i.pk as { S: string }).S}/${(i.sk as { N: string }).N}`));
    }
    expect(seen.sort()).toEqual(expected.sort());
  });
});

describe('Scan: expression errors before the table lookup', () => {
  const NEST = 'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';
  const nested = (levels: number): Record<string, unknown> => {
    let v: Record<string, unknown> = { S: 'leaf' };
    for (let i = 0; i < levels; i++) v = { M: { n: v } };
    return v;
  };

  it.each([
    ['a filter syntax error', { FilterExpression: 'a = = b' }, 'Invalid FilterExpression: Syntax error; token: "=", near: "= = b"'],
    ['an unused value', { FilterExpression: 'a = :v', ExpressionAttributeValues: { ':v': { S: 'x' }, ':u': { S: 'y' } } }, 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}'],
  ])('reports %s on a missing table', (_name, request, message) => {
    expectError(() => db.execute('Scan', { TableName: 'Gone', ...request }), 'ValidationException', message);
  });

  it('reports a ScanFilter value nested 40 levels beside ConditionalOperator on a missing table with one of the two captured answers', () => {
    const request = { TableName: 'Gone', ScanFilter: { a: { ComparisonOperator: 'EQ', AttributeValueList: [nested(40)] } }, ConditionalOperator: 'AND' };
    let message = '';
    try {
      db.execute('Scan', request);
    } catch (e) {
      expect((e as Error).name).toBe('ValidationException');
      message = (e as Error).message;
    }
    expect([NEST, 'ConditionalOperator can only be used when Filter or Expected has two or more elements']).toContain(message);
  });

  it('reports the missing table when the request is well formed', () => {
    expectError(() => db.execute('Scan', { TableName: 'Gone', FilterExpression: 'a = :v', ExpressionAttributeValues: { ':v': { S: 'x' } } }), 'ResourceNotFoundException', 'Requested resource not found');
  });
});
