/**
 * Keys of every size DynamoDB accepts (codec/item-key.ts overflow keys, ops/read/query-range.ts
 * orderedWalk), against a brute-force oracle: sort keys of S and B up to 1,024 bytes (with NULs,
 * whose encoding doubles, so encoded keys reach 2,050 bytes) sharing long prefixes, GSI partition
 * keys up to 2,048 bytes, in the table, an LSI and a GSI of every projection. Every Query (each
 * operator, both directions, paged by Limit through LastEvaluatedKey -> ExclusiveStartKey) returns
 * exactly the matching items in DynamoDB's order; a GSI added afterwards backfills every item
 * (verify() finds no difference); DynamoDB's own size limits are the only refusals left.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { expectError, scanAll, useTempDbs } from '../temp-db.js';

const temp = useTempDbs();

type T = 'S' | 'B';
type Val = string | Uint8Array;
type Projection = 'KEYS_ONLY' | 'INCLUDE' | 'ALL';
type Wire = Record<string, Record<string, unknown>>;

const bytesOf = (v: Val): Buffer => (typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v));
const cmp = (a: Val, b: Val): number => Buffer.compare(bytesOf(a), bytesOf(b));
const wire = (v: Val): Record<string, unknown> => (typeof v === 'string' ? { S: v } : { B: v });
const fromWire = (v: Record<string, unknown>): Val => (v.S !== undefined ? (v.S as string) : new Uint8Array(Buffer.from(v.B as string, 'base64')));
const canon = (v: Val): string => (typeof v === 'string' ? `S${v}` : `B${Buffer.from(v).toString('hex')}`);

/** Cuts `value` from the front until it is at most `max` bytes (DynamoDB's limit). */
function fit(value: Val, max: number): Val {
  if (typeof value === 'string') {
    let s = value;
    while (Buffer.byteLength(s) > max) s = s.slice(1);
    return s;
  }
  return value.length > max ? value.subarray(value.length - max) : value;
}

/** A few long shared heads per scenario, then short random tails: runs of keys sharing 495+ bytes. */
function headArb(t: T): fc.Arbitrary<Val> {
  const n = fc.constantFrom(0, 1, 240, 248, 480, 490, 495, 500, 511, 600, 1000, 1024);
  if (t === 'S') return fc.tuple(fc.constantFrom('x', '\u0000', 'é'), n).map(([c, k]) => c.repeat(k));
  return fc.tuple(fc.constantFrom(0x00, 0x61, 0xff), n).map(([b, k]) => new Uint8Array(k).fill(b));
}

function keyArb(t: T, heads: Val[]): fc.Arbitrary<Val> {
  const tail = t === 'S'
    ? fc.array(fc.constantFrom('a', 'b', '\u0000', '\u0001', 'é', '\ue000'), { maxLength: 3 }).map((a) => a.join(''))
    : fc.array(fc.constantFrom(0x00, 0x01, 0x7f, 0xff), { maxLength: 3 }).map((a) => Uint8Array.from(a));
  return fc.tuple(fc.constantFrom(...heads), tail).map(([h, x]) => {
    const v = typeof h === 'string' ? fit(h + (x as string), 1024) : fit(Buffer.concat([h, x as Uint8Array]), 1024);
    return bytesOf(v).length === 0 ? (t === 'S' ? 'a' : Uint8Array.of(1)) : v;
  });
}

type Item = { pk: string; sk: Val; l: Val; g: string; h: Val; v: number };
type Cond = { op: '=' | '<' | '<=' | '>' | '>=' | 'begins_with'; a: Val } | { op: 'BETWEEN'; a: Val; b: Val };
type Q = { target: 'table' | 'L' | 'G'; part: number; cond: Cond | undefined; forward: boolean; limit: number };
type Scenario = { t: T; projection: Projection; items: Item[]; queries: Q[] };

const PKS = ['p0', 'p1'];
const GS = ['g', 'g'.repeat(2048)];

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({ t: fc.constantFrom<T>('S', 'B'), projection: fc.constantFrom<Projection>('KEYS_ONLY', 'INCLUDE', 'ALL') })
  .chain(({ t, projection }) =>
    fc.uniqueArray(headArb(t), { minLength: 1, maxLength: 3, selector: canon }).chain((heads) => {
      const key = keyArb(t, heads);
      const cond: fc.Arbitrary<Cond> = fc.oneof(
        fc.record({ op: fc.constantFrom('=' as const, '<' as const, '<=' as const, '>' as const, '>=' as const), a: key }),
        fc.tuple(key, key).map(([a, b]): Cond => (cmp(a, b) <= 0 ? { op: 'BETWEEN', a, b } : { op: 'BETWEEN', a: b, b: a })),
        fc.tuple(key, fc.nat()).map(([a, n]): Cond => {
          const cut = typeof a === 'string' ? a.slice(0, Math.max(1, n % (a.length + 1))) : a.subarray(0, Math.max(1, n % (a.length + 1)));
          return { op: 'begins_with', a: cut };
        }),
      );
      return fc.record({
        t: fc.constant(t),
        projection: fc.constant(projection),
        items: fc.uniqueArray(
          fc.record({ pk: fc.constantFrom(...PKS), sk: key, l: key, g: fc.constantFrom(...GS), h: key, v: fc.integer({ min: 0, max: 9 }) }),
          { maxLength: 30, selector: (i) => `${i.pk}|${canon(i.sk)}` },
        ),
        queries: fc.array(
          fc.record({ target: fc.constantFrom('table' as const, 'L' as const, 'G' as const), part: fc.nat({ max: 1 }), cond: fc.option(cond, { nil: undefined }), forward: fc.boolean(), limit: fc.integer({ min: 1, max: 5 }) }),
          { minLength: 1, maxLength: 8 },
        ),
      });
    }),
  );

function matches(value: Val, c: Cond | undefined): boolean {
  if (!c) return true;
  const d = cmp(value, c.a);
  switch (c.op) {
    case '=': return d === 0;
    case '<': return d < 0;
    case '<=': return d <= 0;
    case '>': return d > 0;
    case '>=': return d >= 0;
    case 'BETWEEN': return d >= 0 && cmp(value, c.b) <= 0;
    case 'begins_with': {
      const v = bytesOf(value);
      const p = bytesOf(c.a);
      return v.length >= p.length && v.subarray(0, p.length).equals(p);
    }
  }
}

const projectionSpec = (p: Projection) => (p === 'INCLUDE' ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: ['v'] } : { ProjectionType: p });

function createTable(db: Edgetable, s: Scenario): void {
  db.createTable({
    TableName: 'Long',
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 2,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    AttributeDefinitions: [
      { AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: s.t }, { AttributeName: 'l', AttributeType: s.t },
      { AttributeName: 'g', AttributeType: 'S' }, { AttributeName: 'h', AttributeType: s.t },
    ],
    LocalSecondaryIndexes: [{ IndexName: 'Lsi', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'l', KeyType: 'RANGE' }], Projection: projectionSpec(s.projection) }],
    GlobalSecondaryIndexes: [{ IndexName: 'Gsi', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }, { AttributeName: 'h', KeyType: 'RANGE' }], Projection: projectionSpec(s.projection) }],
  });
}

const toWireItem = (i: Item): Wire => ({ pk: { S: i.pk }, sk: wire(i.sk), l: wire(i.l), g: { S: i.g }, h: wire(i.h), v: { N: String(i.v) }, w: { S: 'not projected' } });

/** What the oracle expects back from `target`: the projection's attributes, as the response shows them. */
function expected(i: Item, target: Q['target'], projection: Projection): string {
  const all = toWireItem(i);
  const names = target === 'table' || projection === 'ALL' ? Object.keys(all)
    : ['pk', 'sk', target === 'L' ? 'l' : 'g', ...(target === 'G' ? ['h'] : []), ...(projection === 'INCLUDE' ? ['v'] : [])];
  return JSON.stringify(Object.fromEntries(names.sort().map((n) => [n, all[n]!.S ?? all[n]!.N ?? Buffer.from(all[n]!.B as Uint8Array).toString('base64')])));
}

function shown(item: Wire): string {
  return JSON.stringify(Object.fromEntries(Object.keys(item).sort().map((n) => [n, item[n]!.S ?? item[n]!.N ?? item[n]!.B])));
}

function runQuery(db: Edgetable, q: Q): { items: Wire[]; count: number } {
  const hashName = q.target === 'G' ? 'g' : 'pk';
  const sortName = q.target === 'table' ? 'sk' : q.target === 'L' ? 'l' : 'h';
  const values: Record<string, unknown> = { ':p': { S: q.target === 'G' ? GS[q.part]! : PKS[q.part]! } };
  let condition = `${hashName} = :p`;
  const c = q.cond;
  if (c) {
    values[':a'] = wire(c.a);
    if (c.op === 'BETWEEN') {
      values[':b'] = wire(c.b);
      condition += ` AND ${sortName} BETWEEN :a AND :b`;
    } else condition += c.op === 'begins_with' ? ` AND begins_with(${sortName}, :a)` : ` AND ${sortName} ${c.op} :a`;
  }
  const items: Wire[] = [];
  let count = 0;
  let start: unknown;
  for (let pages = 0; pages < 100; pages++) {
    const page = db.query(({
      TableName: 'Long',
      ...(q.target === 'table' ? {} : { IndexName: q.target === 'L' ? 'Lsi' : 'Gsi' }),
      KeyConditionExpression: condition,
      ExpressionAttributeValues: values,
      ScanIndexForward: q.forward,
      Limit: q.limit,
      ...(start ? { ExclusiveStartKey: start } : {}),
    }) as Parameters<Edgetable['query']>[0]) as unknown as { Items: Wire[]; Count: number; LastEvaluatedKey?: Wire };
    items.push(...page.Items);
    count += page.Count;
    if (!page.LastEvaluatedKey) return { items, count };
    // The key round trips through the wire form a client would send back.
    start = JSON.parse(JSON.stringify(page.LastEvaluatedKey));
  }
  throw new Error('Query did not finish in 100 pages');
}

function checkQuery(db: Edgetable, s: Scenario, q: Q): void {
  const sortOf = (i: Item) => (q.target === 'table' ? i.sk : q.target === 'L' ? i.l : i.h);
  const want = s.items
    .filter((i) => (q.target === 'G' ? i.g === GS[q.part] : i.pk === PKS[q.part]) && matches(sortOf(i), q.cond))
    .sort((a, b) => cmp(sortOf(a), sortOf(b)) * (q.forward ? 1 : -1));
  const got = runQuery(db, q);
  const sortName = q.target === 'table' ? 'sk' : q.target === 'L' ? 'l' : 'h';
  // Order: the sort key sequence is exactly the oracle's (ties among equal index keys in any order).
  expect(got.items.map((i) => canon(fromWire(i[sortName]!)))).toEqual(want.map((i) => canon(sortOf(i))));
  expect(got.items.map(shown).sort()).toEqual(want.map((i) => expected(i, q.target, s.projection)).sort());
  expect(got.count).toBe(want.length);
}

describe('keys of every size DynamoDB accepts', () => {
  it('Query order, bounds and paging over long S and B keys in a table, an LSI and a GSI match the oracle', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const db = temp.open();
        try {
          createTable(db, s);
          for (const i of s.items) db.putItem({ TableName: 'Long', Item: toWireItem(i) } as Parameters<Edgetable['putItem']>[0]);
          for (const q of s.queries) checkQuery(db, s, q);
          // A GSI added now backfills every item, whatever its key sizes.
          db.updateTable({
            TableName: 'Long',
            AttributeDefinitions: [{ AttributeName: 'l', AttributeType: s.t }],
            GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'Late', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }, { AttributeName: 'l', KeyType: 'RANGE' }], Projection: projectionSpec(s.projection) } }],
          });
          await db.whenIndexesActive();
          const report = db.verify('Long');
          expect(report.Differences).toBe(0);
          for (const ix of report.Indexes) expect(ix.Stored).toBe(s.items.length);
          expect(scanAll(db, { TableName: 'Long', IndexName: 'Late' })).toHaveLength(s.items.length);
          // Scan pages (Limit 2) resume after each long LastEvaluatedKey: every item once.
          for (const target of [{}, { IndexName: 'Lsi' }, { IndexName: 'Gsi' }, { IndexName: 'Late' }]) {
            const seen = scanAll(db, { TableName: 'Long', Limit: 2, ...target }).map((i) => `${(i as Wire).pk!.S}|${canon(fromWire((i as Wire).sk!))}`);
            expect(seen.sort()).toEqual(s.items.map((i) => `${i.pk}|${canon(i.sk)}`).sort());
          }
        } finally {
          db.close();
        }
      }),
      { numRuns: 25 },
    );
  }, 600_000);
});
