/**
 * Query against a brute-force oracle (spec §2, §6.3, §7.4). For random tables (S, N or B partition
 * and sort keys, 1-8 partitions), random items over a few partition keys and random queries (every
 * sort-key operator, both directions, random Limit, optional FilterExpression), the items of ALL
 * pages (following LastEvaluatedKey) equal a filter + sort over the written items, and
 * Count/ScannedCount add up. The oracle orders keys on its own: S by UTF-8 bytes, B by unsigned
 * bytes, N by exact decimal comparison on BigInts (never floats).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, tableRequest, useTempDbs } from '../temp-db.js';

const temp = useTempDbs('file');

type KeyType = 'S' | 'N' | 'B';
/** A key value as the oracle holds it; N is mantissa * 10^exponent, normalised (no trailing zeros in m). */
type Key = { t: 'S'; s: string } | { t: 'N'; m: bigint; e: number } | { t: 'B'; b: Uint8Array };

function normalizeNumber(m: bigint, e: number): Key {
  if (m === 0n) return { t: 'N', m: 0n, e: 0 };
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  return { t: 'N', m, e };
}

function compareKeys(a: Key, b: Key): number {
  if (a.t === 'S' && b.t === 'S') return Buffer.compare(Buffer.from(a.s, 'utf8'), Buffer.from(b.s, 'utf8'));
  if (a.t === 'B' && b.t === 'B') return Buffer.compare(Buffer.from(a.b), Buffer.from(b.b));
  if (a.t === 'N' && b.t === 'N') {
    const e = Math.min(a.e, b.e);
    const x = a.m * 10n ** BigInt(a.e - e);
    const y = b.m * 10n ** BigInt(b.e - e);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  throw new Error('mixed key types');
}

function beginsWith(value: Key, prefix: Key): boolean {
  const bytes = (k: Key) => (k.t === 'S' ? Buffer.from(k.s, 'utf8') : k.t === 'B' ? Buffer.from(k.b) : Buffer.alloc(0));
  const v = bytes(value);
  const p = bytes(prefix);
  return v.length >= p.length && v.subarray(0, p.length).equals(p);
}

const canon = (k: Key): string => (k.t === 'S' ? `S:${k.s}` : k.t === 'B' ? `B:${Buffer.from(k.b).toString('hex')}` : `N:${k.m}e${k.e}`);

/** Request form: N as a mantissa/exponent literal, B as a Uint8Array or base64 by `asBase64`. */
function toWire(k: Key, asBase64 = false): Record<string, unknown> {
  if (k.t === 'S') return { S: k.s };
  if (k.t === 'B') return { B: asBase64 ? Buffer.from(k.b).toString('base64') : k.b };
  return { N: `${k.m}E${k.e}` };
}

/** Response form back to the oracle's: N is a plain decimal, B base64. */
function fromWire(t: KeyType, v: Record<string, string>): Key {
  if (t === 'S') return { t, s: v.S! };
  if (t === 'B') return { t, b: new Uint8Array(Buffer.from(v.B!, 'base64')) };
  const text = v.N!;
  expect(text).toMatch(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/);
  const negative = text.startsWith('-');
  const [int, frac = ''] = text.replace('-', '').split('.');
  const m = BigInt(int! + frac);
  return normalizeNumber(negative ? -m : m, -frac.length);
}

// Characters chosen to catch UTF-16-vs-UTF-8 ordering mistakes (U+E000..U+FFFF vs astral) and
// escaping of 0x00 in the order-preserving key encoding.
const CHARS = ['a', 'b', 'z', 'A', '0', '\u0000', '\u0001', 'é', '¿', '\u07ff', '\ue000', '\ufffd', '\u{10000}', '\u{1f600}'];
const BYTES = [0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff];

function keyArb(t: KeyType): fc.Arbitrary<Key> {
  if (t === 'S') return fc.array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 4 }).map((a): Key => ({ t: 'S', s: a.join('') }));
  if (t === 'B') return fc.array(fc.constantFrom(...BYTES), { minLength: 1, maxLength: 4 }).map((a): Key => ({ t: 'B', b: Uint8Array.from(a) }));
  const mantissa = fc.oneof(
    fc.bigInt({ min: -20n, max: 20n }),
    fc.bigInt({ min: -(10n ** 38n) + 1n, max: 10n ** 38n - 1n }),
    fc.constantFrom(10n ** 37n, 10n ** 37n + 1n, -(10n ** 37n), 99999999999999999999999999999999999999n),
  );
  return fc.tuple(mantissa, fc.integer({ min: -20, max: 20 })).map(([m, e]) => normalizeNumber(m, e));
}

type SortCondition =
  | { op: '=' | '<' | '<=' | '>' | '>='; value: Key }
  | { op: 'BETWEEN'; low: Key; high: Key }
  | { op: 'begins_with'; prefix: Key };

type QuerySpec = {
  pk: Key;
  sort: SortCondition | undefined;
  forward: boolean;
  limit: number | undefined;
  filter: { op: '<' | '=' | '<>'; v: number } | undefined;
  count: boolean;
};

type Scenario = {
  pkType: KeyType;
  skType: KeyType;
  partitions: number;
  items: { pk: Key; sk: Key; v: number }[];
  queries: QuerySpec[];
};

function sortArb(t: KeyType): fc.Arbitrary<SortCondition> {
  const k = keyArb(t);
  const ops: fc.Arbitrary<SortCondition>[] = [
    fc.record({ op: fc.constantFrom('=' as const, '<' as const, '<=' as const, '>' as const, '>=' as const), value: k }),
    fc.tuple(k, k).map(([a, b]): SortCondition => (compareKeys(a, b) <= 0 ? { op: 'BETWEEN', low: a, high: b } : { op: 'BETWEEN', low: b, high: a })),
  ];
  if (t !== 'N') ops.push(k.map((prefix): SortCondition => ({ op: 'begins_with', prefix })));
  return fc.oneof(...ops);
}

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({ pkType: fc.constantFrom<KeyType>('S', 'N', 'B'), skType: fc.constantFrom<KeyType>('S', 'N', 'B'), partitions: fc.integer({ min: 1, max: 8 }) })
  .chain(({ pkType, skType, partitions }) =>
    fc.uniqueArray(keyArb(pkType), { minLength: 1, maxLength: 3, selector: canon }).chain((pks) =>
      fc.record({
        pkType: fc.constant(pkType),
        skType: fc.constant(skType),
        partitions: fc.constant(partitions),
        items: fc.uniqueArray(fc.record({ pk: fc.constantFrom(...pks), sk: keyArb(skType), v: fc.integer({ min: 0, max: 4 }) }), {
          maxLength: 40,
          selector: (i) => `${canon(i.pk)}|${canon(i.sk)}`,
        }),
        queries: fc.array(
          fc.record({
            pk: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pks) }, { weight: 1, arbitrary: keyArb(pkType) }),
            sort: fc.option(sortArb(skType), { nil: undefined }),
            forward: fc.boolean(),
            limit: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
            filter: fc.option(fc.record({ op: fc.constantFrom('<' as const, '=' as const, '<>' as const), v: fc.integer({ min: 0, max: 4 }) }), { nil: undefined }),
            count: fc.boolean(),
          }),
          { minLength: 1, maxLength: 6 },
        ),
      }),
    ),
  );

function matchesSort(sk: Key, c: SortCondition | undefined): boolean {
  if (!c) return true;
  switch (c.op) {
    case '=':
      return compareKeys(sk, c.value) === 0;
    case '<':
      return compareKeys(sk, c.value) < 0;
    case '<=':
      return compareKeys(sk, c.value) <= 0;
    case '>':
      return compareKeys(sk, c.value) > 0;
    case '>=':
      return compareKeys(sk, c.value) >= 0;
    case 'BETWEEN':
      return compareKeys(sk, c.low) >= 0 && compareKeys(sk, c.high) <= 0;
    case 'begins_with':
      return beginsWith(sk, c.prefix);
  }
}

function matchesFilter(v: number, f: QuerySpec['filter']): boolean {
  if (!f) return true;
  return f.op === '<' ? v < f.v : f.op === '=' ? v === f.v : v !== f.v;
}

function queryRequest(table: string, q: QuerySpec): Record<string, unknown> {
  const names: Record<string, string> = { '#p': 'pk' };
  const values: Record<string, unknown> = { ':p': toWire(q.pk, true) };
  let condition = '#p = :p';
  const s = q.sort;
  if (s) {
    names['#s'] = 'sk';
    if (s.op === 'BETWEEN') {
      condition += ' AND #s BETWEEN :a AND :b';
      values[':a'] = toWire(s.low, true);
      values[':b'] = toWire(s.high);
    } else if (s.op === 'begins_with') {
      condition += ' AND begins_with(#s, :a)';
      values[':a'] = toWire(s.prefix, true);
    } else {
      condition += ` AND #s ${s.op} :a`;
      values[':a'] = toWire(s.value);
    }
  }
  const request: Record<string, unknown> = { TableName: table, KeyConditionExpression: condition, ScanIndexForward: q.forward };
  if (q.filter) {
    names['#v'] = 'v';
    values[':f'] = { N: String(q.filter.v) };
    request.FilterExpression = `#v ${q.filter.op} :f`;
  }
  if (q.limit !== undefined) request.Limit = q.limit;
  if (q.count) request.Select = 'COUNT';
  return { ...request, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

type Page = { Items?: Record<string, Record<string, string>>[]; Count: number; ScannedCount: number; LastEvaluatedKey?: Record<string, Record<string, string>> };

function checkQuery(db: Edgetable, table: string, s: Scenario, q: QuerySpec): void {
  const matched = s.items.filter((i) => compareKeys(i.pk, q.pk) === 0 && matchesSort(i.sk, q.sort)).sort((a, b) => compareKeys(a.sk, b.sk));
  if (!q.forward) matched.reverse();
  const expected = matched.filter((i) => matchesFilter(i.v, q.filter));

  const request = queryRequest(table, q);
  const got: { pk: Key; sk: Key; v: number }[] = [];
  let scanned = 0;
  let counted = 0;
  let start: unknown;
  for (let pageNo = 0; ; pageNo++) {
    expect(pageNo).toBeLessThanOrEqual(matched.length + 1);
    const page = db.execute('Query', { ...request, ...(start ? { ExclusiveStartKey: start } : {}) }) as Page;
    if (q.count) expect(page.Items).toBeUndefined();
    else expect(page.Count).toBe(page.Items?.length);
    if (q.limit !== undefined) expect(page.ScannedCount).toBeLessThanOrEqual(q.limit);
    scanned += page.ScannedCount;
    counted += page.Count;
    for (const item of page.Items ?? []) got.push({ pk: fromWire(s.pkType, item.pk!), sk: fromWire(s.skType, item.sk!), v: Number(item.v!.N) });
    if (!page.LastEvaluatedKey) {
      if (q.limit !== undefined) expect(page.ScannedCount).toBeLessThan(q.limit); // Limit reached always leaves a LastEvaluatedKey
      break;
    }
    expect(page.ScannedCount).toBe(q.limit);
    // The LastEvaluatedKey is the key of the last item evaluated, filtered out or not.
    const last = matched[scanned - 1]!;
    expect(canon(fromWire(s.skType, page.LastEvaluatedKey.sk!))).toBe(canon(last.sk));
    expect(canon(fromWire(s.pkType, page.LastEvaluatedKey.pk!))).toBe(canon(last.pk));
    start = page.LastEvaluatedKey;
  }
  if (!q.count) expect(got.map((i) => `${canon(i.pk)}|${canon(i.sk)}|${i.v}`)).toEqual(expected.map((i) => `${canon(i.pk)}|${canon(i.sk)}|${i.v}`));
  expect(scanned).toBe(matched.length);
  expect(counted).toBe(expected.length);
}

let tableNo = 0;

describe('Query against a brute-force oracle', () => {
  const db = (() => {
    let opened: Edgetable | undefined;
    return () => (opened ??= temp.open());
  })();

  it('returns exactly the filtered, sorted items across all pages', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const table = `Query${tableNo++}`;
        const engine = db();
        engine.createTable(tableRequest(table, ['pk', s.pkType], ['sk', s.skType], s.partitions));
        try {
          for (let i = 0; i < s.items.length; i += 25) {
            const chunk = s.items.slice(i, i + 25).map((it) => ({ PutRequest: { Item: { pk: toWire(it.pk), sk: toWire(it.sk), v: { N: String(it.v) } } } }));
            engine.execute('BatchWriteItem', { RequestItems: { [table]: chunk } });
          }
          for (const q of s.queries) checkQuery(engine, table, s, q);
        } finally {
          engine.deleteTable({ TableName: table });
        }
      }),
      { numRuns: 120 },
    );
  });

  it('refuses an ExclusiveStartKey outside the queried partition', () => {
    const engine = db();
    engine.createTable(tableRequest('Bounds', ['pk', 'S'], ['sk', 'N'], 4));
    for (const pk of ['a', 'b']) for (let i = 0; i < 3; i++) engine.putItem({ TableName: 'Bounds', Item: { pk: { S: pk }, sk: { N: String(i) } } });
    const base = { TableName: 'Bounds', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'a' } } };
    expectError(
      () => engine.query({ ...base, ExclusiveStartKey: { pk: { S: 'b' }, sk: { N: '1' } } }),
      'ValidationException',
      'The provided starting key is outside query boundaries based on provided conditions',
    );
    const page = engine.query({ ...base, ExclusiveStartKey: { pk: { S: 'a' }, sk: { N: '0' } } });
    expect(page.Items!.map((i) => (i.sk as { N: string }).N)).toEqual(['1', '2']);
  });

  it('cuts a page once 1 MB has been read, in both directions, metering the page in one rounding', () => {
    const engine = db();
    engine.createTable(tableRequest('Megabyte', ['pk', 'S'], ['sk', 'N'], 2));
    // 'pk' (2) + 'a' (1) + 'sk' (2) + N size 2 + 'd' (1) + padding = 102,400 bytes per item.
    for (let i = 1; i <= 15; i++) {
      engine.putItem({ TableName: 'Megabyte', Item: { pk: { S: 'a' }, sk: { N: String(i) }, d: { B: new Uint8Array(102_400 - 8).fill(i) } } });
    }
    for (const forward of [true, false]) {
      const request = { TableName: 'Megabyte', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'a' } }, ScanIndexForward: forward, ConsistentRead: true, ReturnConsumedCapacity: 'TOTAL' } as const;
      const first = engine.query(request) as Page & { ConsumedCapacity: unknown };
      const order = forward ? ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11'] : ['15', '14', '13', '12', '11', '10', '9', '8', '7', '6', '5'];
      expect(first.Items!.map((i) => i.sk!.N)).toEqual(order);
      expect(first.LastEvaluatedKey).toEqual({ pk: { S: 'a' }, sk: { N: order.at(-1)! } });
      expect(first.ConsumedCapacity).toEqual({ TableName: 'Megabyte', CapacityUnits: 275 }); // ceil(11 * 102,400 / 4,096)
      const second = engine.execute('Query', { ...request, ExclusiveStartKey: first.LastEvaluatedKey }) as Page;
      expect(second.Items!.map((i) => i.sk!.N)).toEqual(forward ? ['12', '13', '14', '15'] : ['4', '3', '2', '1']);
      expect(second.LastEvaluatedKey).toBeUndefined();
    }
  });
});
