/**
 * Hostile expression strings (issue 9 part 3): token soup from the expression grammar's alphabet
 * plus arbitrary text, with and without name/value maps, against every expression kind.
 * compileExpressions either compiles or throws ValidationException (SerializationException for a
 * name or value of the wrong JSON type, as DynamoDB answers): nothing else, no hang.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileExpressions, type ExpressionRequest } from '../../src/expr/compile-expressions.js';
import { budgetMs, fuzzFor, settledHeapBytes } from './harness/fuzz-budget.js';

const TOKENS = [
  'a', 'b', 'pk', 'sk', '#n', '#m', ':v', ':w', ':missing', '#missing', 'SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN',
  'attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains', 'size', 'if_not_exists', 'list_append',
  '(', ')', '[', ']', '[0]', '[99999999999999999999]', '.', ',', '=', '<>', '<', '<=', '>', '>=', '+', '-', ' ', '  ', '\t', '\n',
  '0', '1.5', '"', "'", '`', '\\', '\u0000', 'é', '😀', 'SELECT', 'path.to[3].x',
];

const soup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((t) => t.join(' '));
const tight = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((t) => t.join(''));
const deep = fc.integer({ min: 1, max: 3000 }).map((n) => `${'('.repeat(n)}a = :v${')'.repeat(n)}`);
const long = fc.integer({ min: 1, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => `a${i} = :v`).join(' AND '));
const VALID = [
  'a = :v', '#n < :v AND attribute_exists(b)', 'begins_with(#n, :w) OR NOT contains(a, :w)', 'size(a[0].b) BETWEEN :v AND :v',
  'a IN (:v, :w)', 'pk = :w AND sk > :v', 'SET a = :v, #n = if_not_exists(#n, :v) + :v REMOVE b[1]', 'ADD a :v DELETE b :w',
  'SET a = list_append(a, :v)', 'a, #n.b[2], c', 'attribute_type(a, :w)',
];
/** A valid expression with one token inserted, or a slice cut out: close to the grammar, so deep into the parser. */
const nearValid = fc
  .tuple(fc.constantFrom(...VALID), fc.nat(), fc.nat(), fc.constantFrom(...TOKENS), fc.boolean())
  .map(([e, at, len, token, insert]) => {
    const i = at % (e.length + 1);
    return insert ? e.slice(0, i) + token + e.slice(i) : e.slice(0, i) + e.slice(i + (len % 6));
  });
const expression = fc.oneof({ arbitrary: nearValid, weight: 4 }, soup, tight, fc.string({ maxLength: 80 }), { arbitrary: deep, weight: 1 }, { arbitrary: long, weight: 1 }, fc.string({ minLength: 4000, maxLength: 5000 }));

const ALLOWED = new Set(['ValidationException', 'SerializationException']);
const KINDS = ['ConditionExpression', 'FilterExpression', 'KeyConditionExpression', 'UpdateExpression', 'ProjectionExpression'] as const;

const requests = fc.record({
  kind: fc.constantFrom(...KINDS),
  expression,
  names: fc.option(fc.oneof({ arbitrary: fc.constant({ '#n': 'a', '#m': 'b' }), weight: 4 }, fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer() as fc.Arbitrary<unknown>))), { freq: 3 }),
  values: fc.option(fc.oneof({ arbitrary: fc.constant({ ':v': { N: '1' }, ':w': { S: 'x' } }), weight: 4 }, fc.dictionary(fc.string({ maxLength: 5 }), fc.anything({ maxDepth: 2 }))), { freq: 3 }),
});

describe('hostile expressions', () => {
  it('compileExpressions only ever compiles or throws ValidationException / SerializationException', async () => {
    const errors = new Map<string, number>();
    let compiled = 0;
    const heapBefore = settledHeapBytes();
    const tried = await fuzzFor(requests, budgetMs(6_000), 77, ({ kind, expression, names, values }) => {
      const req: ExpressionRequest = { [kind]: expression };
      if (names !== null) req.ExpressionAttributeNames = names as Record<string, string>;
      if (values !== null) req.ExpressionAttributeValues = values as Record<string, unknown>;
      try {
        compileExpressions(req);
        compiled += 1;
      } catch (error) {
        const name = error instanceof Error ? error.name : typeof error;
        errors.set(name, (errors.get(name) ?? 0) + 1);
        if (!ALLOWED.has(name)) throw error;
      }
    });
    const heapGrowth = settledHeapBytes() - heapBefore;
    console.log(`hostile expressions: ${tried} tried, ${compiled} compiled, rejected ${JSON.stringify(Object.fromEntries(errors))}, heap growth ${(heapGrowth / 1024 / 1024).toFixed(1)} MiB`);
    expect([...errors.keys()].filter((n) => !ALLOWED.has(n))).toEqual([]);
    expect(compiled).toBeGreaterThan(0);
    expect(heapGrowth).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
