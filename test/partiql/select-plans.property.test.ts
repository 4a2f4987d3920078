/**
 * Whatever plan a SELECT compiles to (GetItem, Query with key and filter conditions, or Scan),
 * its items, over all pages (random Limit, following NextToken), are exactly those a brute-force
 * evaluation of the WHERE clause picks from the table; with ORDER BY on the sort key they come in
 * sort-key order, ascending or descending.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { ORDER_DESC_NEEDS_QUERY } from '../../src/partiql/compile-statement.js';
import { useTempDbs } from '../ops/temp-db.js';

const temp = useTempDbs('file');

type Row = { pk: string; sk: number; x?: number };
type Cond = { text: string; test: (r: Row) => boolean };

const PKS = ['a', 'ab', 'b'];
const rows: Row[] = PKS.flatMap((pk, i) => Array.from({ length: 6 }, (_, sk) => ({ pk, sk, ...((sk + i) % 4 === 3 ? {} : { x: (sk * 7 + i) % 4 }) })));

const cmp = fc.constantFrom('=', '<', '<=', '>', '>=');
const compare = (a: number, op: string, b: number) => (op === '=' ? a === b : op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b);

const skCond: fc.Arbitrary<Cond> = fc.oneof(
  fc.tuple(cmp, fc.integer({ min: -1, max: 6 })).map(([op, n]) => ({ text: `sk ${op} ${n}`, test: (r: Row) => compare(r.sk, op, n) })),
  fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 })).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const).map(([lo, hi]) => ({ text: `sk BETWEEN ${lo} AND ${hi}`, test: (r: Row) => r.sk >= lo && r.sk <= hi })),
);
const xCond: fc.Arbitrary<Cond> = fc.oneof(
  fc.tuple(cmp, fc.integer({ min: 0, max: 3 })).map(([op, n]) => ({ text: `x ${op} ${n}`, test: (r: Row) => r.x !== undefined && compare(r.x, op, n) })),
  fc.constant({ text: 'x IS MISSING', test: (r: Row) => r.x === undefined }),
  fc.constant({ text: 'x IS NOT MISSING', test: (r: Row) => r.x !== undefined }),
  fc.constantFrom('a', 'b').map((p) => ({ text: `begins_with(pk, '${p}')`, test: (r: Row) => r.pk.startsWith(p) })),
);
const loose: fc.Arbitrary<Cond> = fc.oneof(skCond, xCond).chain((c) =>
  fc.oneof(
    fc.constant(c),
    fc.tuple(fc.oneof(skCond, xCond), fc.constantFrom('AND', 'OR')).map(([d, op]) => ({ text: `(${c.text} ${op} ${d.text})`, test: (r: Row) => (op === 'AND' ? c.test(r) && d.test(r) : c.test(r) || d.test(r)) })),
    fc.constant({ text: `NOT ${c.text}`, test: (r: Row) => !c.test(r) }),
  ),
);

/** A WHERE clause: maybe a partition-key equality, then up to two more conjuncts. */
const where = fc.record({
  pk: fc.option(fc.constantFrom(...PKS, 'zz'), { nil: undefined }),
  sk: fc.option(skCond, { nil: undefined }),
  rest: fc.array(loose, { maxLength: 2 }),
  order: fc.constantFrom(undefined, 'ASC', 'DESC'),
  limit: fc.option(fc.integer({ min: 1, max: 7 }), { nil: undefined }),
  projection: fc.boolean(),
});

describe('PartiQL SELECT plans', () => {
  let db: Edgetable;
  beforeAll(() => {
    db = temp.open({ durability: 'relaxed' });
    db.createTable({
      TableName: 'Plans',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'N' },
      ],
    });
    for (const r of rows) db.putItem({ TableName: 'Plans', Item: { pk: { S: r.pk }, sk: { N: String(r.sk) }, ...(r.x !== undefined ? { x: { N: String(r.x) } } : {}) } });
  });

  it('return exactly the rows the WHERE clause selects, in ORDER BY order', () => {
    fc.assert(
      fc.property(where, (w) => {
        const conds: Cond[] = [
          ...(w.pk !== undefined ? [{ text: `pk = '${w.pk}'`, test: (r: Row) => r.pk === w.pk }] : []),
          ...(w.sk ? [w.sk] : []),
          ...w.rest,
        ];
        const order = w.pk !== undefined ? w.order : undefined;
        const statement =
          `SELECT ${w.projection ? 'sk, pk' : '*'} FROM Plans` +
          (conds.length > 0 ? ` WHERE ${conds.map((c) => c.text).join(' AND ')}` : '') +
          (order ? ` ORDER BY sk ${order}` : '');
        const got: string[] = [];
        // A plan that is a Scan (conjuncts beyond the key condition name a key attribute) cannot run
        // backwards: DESC is refused then, and only then.
        const others = conds.slice(w.pk !== undefined ? 1 : 0);
        let refused = false;
        try {
          db.executeStatement({ Statement: statement, Limit: 1 });
        } catch (error) {
          expect((error as Error).message).toBe(ORDER_DESC_NEEDS_QUERY);
          refused = true;
        }
        if (refused) {
          expect(order).toBe('DESC');
          expect(others.filter((c) => /\b(sk|pk)\b/.test(c.text)).length).toBeGreaterThan(0);
          return;
        }
        let NextToken: string | undefined;
        let pages = 0;
        do {
          const r = db.executeStatement({ Statement: statement, ...(w.limit ? { Limit: w.limit } : {}), ...(NextToken ? { NextToken } : {}) }) as {
            Items: { pk: { S: string }; sk: { N: string }; x?: unknown }[];
            NextToken?: string;
          };
          for (const item of r.Items) {
            if (w.projection) expect(item.x).toBeUndefined();
            got.push(`${item.pk.S}/${item.sk.N}`);
          }
          NextToken = r.NextToken;
          expect(++pages).toBeLessThan(40);
        } while (NextToken);
        const expected = rows.filter((r) => conds.every((c) => c.test(r))).map((r) => `${r.pk}/${r.sk}`);
        if (order === 'DESC') expected.reverse();
        if (order) expect(got).toEqual(expected);
        else expect([...got].sort()).toEqual([...expected].sort());
      }),
      { numRuns: 300 },
    );
  });
});
