/**
 * Index maintenance against a model (spec §4.2, §4.4): random puts, updates (index keys set,
 * changed and removed), deletes, BatchWriteItem and TransactWriteItems on a table with two LSIs and
 * two GSIs covering KEYS_ONLY, INCLUDE and ALL. Afterwards `verify()` reports no difference, and
 * every index Query (whole index partition and each sort-key operator) returns exactly what a
 * brute-force computation over the model returns: sparse items left out, projections applied,
 * entries in index sort-key order. Writes carrying an index key of the wrong type are rejected
 * whole and change nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Edgetable } from '../../src/edgetable.js';
import { expectError, useTempDbs } from './temp-db.js';

const temp = useTempDbs('file');

type V = { S: string } | { N: string };
type Item = Record<string, V>;

/** Index definitions the model also reads: name, keys, projection. */
type IndexSpec = {
  name: string;
  kind: 'local' | 'global';
  pk: [string, 'S' | 'N'];
  sk?: [string, 'S' | 'N'];
  projection: 'KEYS_ONLY' | 'ALL' | { include: string[] };
};

const INDEXES: IndexSpec[] = [
  { name: 'lsi_keys', kind: 'local', pk: ['pk', 'S'], sk: ['la', 'S'], projection: 'KEYS_ONLY' },
  { name: 'lsi_all', kind: 'local', pk: ['pk', 'S'], sk: ['lb', 'N'], projection: 'ALL' },
  { name: 'gsi_incl', kind: 'global', pk: ['g', 'S'], sk: ['gs', 'N'], projection: { include: ['x', 'lb'] } },
  { name: 'gsi_keys', kind: 'global', pk: ['h', 'N'], projection: 'KEYS_ONLY' },
];

/** Non-key attributes and their domains; small domains so index keys collide and move often. */
const DOMAINS: Record<string, fc.Arbitrary<V>> = {
  la: fc.constantFrom('p', 'q', 'r').map((S) => ({ S })),
  lb: fc.constantFrom('1', '2', '-3', '2.5').map((N) => ({ N })),
  g: fc.constantFrom('u', 'v').map((S) => ({ S })),
  gs: fc.constantFrom('1', '2', '10').map((N) => ({ N })),
  h: fc.constantFrom('7', '8').map((N) => ({ N })),
  x: fc.string({ maxLength: 6 }).map((S) => ({ S })),
  y: fc.integer({ min: -50, max: 50 }).map((n) => ({ N: String(n) })),
};
const ATTRS = Object.keys(DOMAINS);
const TYPES: Record<string, 'S' | 'N'> = { la: 'S', lb: 'N', g: 'S', gs: 'N', h: 'N' };

const keyArb = fc.record({ pk: fc.constantFrom('a', 'b', 'c'), sk: fc.integer({ min: 0, max: 5 }) });
const attrsArb = fc.dictionary(fc.constantFrom(...ATTRS), fc.constant(null)).chain((names) =>
  fc.record(Object.fromEntries(Object.keys(names).map((n) => [n, DOMAINS[n]!])) as Record<string, fc.Arbitrary<V>>),
);

type Op =
  | { kind: 'put'; key: { pk: string; sk: number }; attrs: Item }
  | { kind: 'update'; key: { pk: string; sk: number }; set: Item; remove: string[] }
  | { kind: 'delete'; key: { pk: string; sk: number } }
  | { kind: 'batch'; ops: Extract<Op, { kind: 'put' | 'delete' }>[] }
  | { kind: 'transact'; ops: Extract<Op, { kind: 'put' | 'update' | 'delete' }>[] }
  | { kind: 'badType'; key: { pk: string; sk: number }; attr: string; via: 'put' | 'update' | 'batch' | 'transact' };

const putArb = fc.record({ kind: fc.constant('put' as const), key: keyArb, attrs: attrsArb });
const updateArb = fc.record({
  kind: fc.constant('update' as const),
  key: keyArb,
  set: attrsArb,
  remove: fc.subarray(ATTRS, { maxLength: 3 }),
}).map((u) => ({ ...u, remove: u.remove.filter((n) => u.set[n] === undefined) }));
const deleteArb = fc.record({ kind: fc.constant('delete' as const), key: keyArb });
const distinct = <T extends { key: { pk: string; sk: number } }>(ops: T[]) => {
  const seen = new Set<string>();
  return ops.filter((o) => {
    const k = `${o.key.pk}/${o.key.sk}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: putArb },
  { weight: 4, arbitrary: updateArb },
  { weight: 2, arbitrary: deleteArb },
  { weight: 1, arbitrary: fc.array(fc.oneof(putArb, deleteArb), { minLength: 1, maxLength: 6 }).map((ops) => ({ kind: 'batch' as const, ops: distinct(ops) })) },
  { weight: 1, arbitrary: fc.array(fc.oneof(putArb, updateArb, deleteArb), { minLength: 1, maxLength: 5 }).map((ops) => ({ kind: 'transact' as const, ops: distinct(ops) })) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('badType' as const),
      key: keyArb,
      attr: fc.constantFrom(...Object.keys(TYPES)),
      via: fc.constantFrom('put' as const, 'update' as const, 'batch' as const, 'transact' as const),
    }),
  },
);

const keyItem = (k: { pk: string; sk: number }): Item => ({ pk: { S: k.pk }, sk: { N: String(k.sk) } });
const id = (k: { pk: string; sk: number }) => `${k.pk}/${k.sk}`;

function createTable(db: Edgetable, name: string): void {
  const attr = (a: [string, string]) => ({ AttributeName: a[0], AttributeType: a[1] });
  const keys = (ix: IndexSpec) => [{ AttributeName: ix.pk[0], KeyType: 'HASH' }, ...(ix.sk ? [{ AttributeName: ix.sk[0], KeyType: 'RANGE' }] : [])];
  const projection = (ix: IndexSpec) =>
    typeof ix.projection === 'string' ? { ProjectionType: ix.projection } : { ProjectionType: 'INCLUDE', NonKeyAttributes: ix.projection.include };
  const defs = new Map<string, string>([['pk', 'S'], ['sk', 'N'], ...Object.entries(TYPES)]);
  db.execute('CreateTable', {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    PartitionCount: 3,
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    AttributeDefinitions: [...defs].map((d) => attr(d)),
    LocalSecondaryIndexes: INDEXES.filter((i) => i.kind === 'local').map((ix) => ({ IndexName: ix.name, KeySchema: keys(ix), Projection: projection(ix) })),
    GlobalSecondaryIndexes: INDEXES.filter((i) => i.kind === 'global').map((ix) => ({ IndexName: ix.name, KeySchema: keys(ix), Projection: projection(ix) })),
  });
}

function updateRequest(table: string, op: { key: { pk: string; sk: number }; set: Item; remove: string[] }) {
  const names: Record<string, string> = {};
  const values: Record<string, V> = {};
  const sets = Object.entries(op.set).map(([n, v], i) => {
    names[`#s${i}`] = n;
    values[`:s${i}`] = v;
    return `#s${i} = :s${i}`;
  });
  const removes = op.remove.map((n, i) => {
    names[`#r${i}`] = n;
    return `#r${i}`;
  });
  const clauses = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean);
  if (clauses.length === 0) {
    names['#y'] = 'y';
    values[':y'] = { N: '0' };
    clauses.push('SET #y = :y');
    op = { ...op, set: { y: { N: '0' } } };
  }
  return {
    request: {
      TableName: table,
      Key: keyItem(op.key),
      UpdateExpression: clauses.join(' '),
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
    },
    set: op.set,
  };
}

/** Applies `op` to the engine and to the model. */
function apply(db: Edgetable, table: string, model: Map<string, Item>, op: Op): void {
  switch (op.kind) {
    case 'put':
      db.putItem({ TableName: table, Item: { ...op.attrs, ...keyItem(op.key) } });
      model.set(id(op.key), { ...op.attrs, ...keyItem(op.key) });
      return;
    case 'update': {
      const { request, set } = updateRequest(table, op);
      db.updateItem(request);
      const next: Item = { ...(model.get(id(op.key)) ?? keyItem(op.key)), ...set };
      for (const n of op.remove) delete next[n];
      model.set(id(op.key), next);
      return;
    }
    case 'delete':
      db.deleteItem({ TableName: table, Key: keyItem(op.key) });
      model.delete(id(op.key));
      return;
    case 'batch':
      db.batchWriteItem({
        RequestItems: {
          [table]: op.ops.map((o) => (o.kind === 'put' ? { PutRequest: { Item: { ...o.attrs, ...keyItem(o.key) } } } : { DeleteRequest: { Key: keyItem(o.key) } })),
        },
      });
      for (const o of op.ops) applyModel(model, o);
      return;
    case 'transact':
      db.transactWriteItems({
        TransactItems: op.ops.map((o) => {
          if (o.kind === 'put') return { Put: { TableName: table, Item: { ...o.attrs, ...keyItem(o.key) } } };
          if (o.kind === 'delete') return { Delete: { TableName: table, Key: keyItem(o.key) } };
          return { Update: updateRequest(table, o).request };
        }),
      });
      for (const o of op.ops) {
        if (o.kind === 'update') applyModel(model, { ...o, set: updateRequest(table, o).set });
        else applyModel(model, o);
      }
      return;
    case 'badType': {
      const wrong: V = TYPES[op.attr] === 'S' ? { N: '1' } : { S: 'one' };
      const ix = INDEXES.find((i) => i.pk[0] === op.attr || i.sk?.[0] === op.attr)!;
      const message = `One or more parameter values were invalid: Type mismatch for Index Key ${op.attr} Expected: ${TYPES[op.attr]} Actual: ${'N' in wrong ? 'N' : 'S'} IndexName: ${ix.name}`;
      const before = snapshot(db, table);
      const item = { ...keyItem(op.key), [op.attr]: wrong };
      const other = { pk: { S: 'z' }, sk: { N: '99' }, y: { N: '1' } };
      if (op.via === 'put') expectError(() => db.putItem({ TableName: table, Item: item }), 'ValidationException', message);
      else if (op.via === 'batch') {
        expect(() => db.batchWriteItem({ RequestItems: { [table]: [{ PutRequest: { Item: other } }, { PutRequest: { Item: item } }] } })).toThrow(/Type mismatch for Index Key|index key/);
      } else if (op.via === 'transact') {
        expect(() => db.transactWriteItems({ TransactItems: [{ Put: { TableName: table, Item: other } }, { Put: { TableName: table, Item: item } }] })).toThrow();
      } else {
        expect(() => db.updateItem({
          TableName: table,
          Key: keyItem(op.key),
          UpdateExpression: 'SET #a = :v',
          ExpressionAttributeNames: { '#a': op.attr },
          ExpressionAttributeValues: { ':v': wrong },
        })).toThrow();
      }
      expect(snapshot(db, table)).toEqual(before);
      return;
    }
  }
}

function applyModel(model: Map<string, Item>, o: Op): void {
  if (o.kind === 'put') model.set(id(o.key), { ...o.attrs, ...keyItem(o.key) });
  else if (o.kind === 'delete') model.delete(id(o.key));
  else if (o.kind === 'update') {
    const next: Item = { ...(model.get(id(o.key)) ?? keyItem(o.key)), ...o.set };
    for (const n of o.remove) delete next[n];
    model.set(id(o.key), next);
  }
}

function snapshot(db: Edgetable, table: string): string[] {
  const items = (db.scan({ TableName: table, ConsistentRead: true }).Items ?? []) as Item[];
  return items.map((i) => JSON.stringify(sortKeys(i))).sort();
}

const sortKeys = (i: Item): Item => Object.fromEntries(Object.entries(i).sort(([a], [b]) => (a < b ? -1 : 1)));

function compareValue(a: V, b: V): number {
  if ('N' in a && 'N' in b) return Number(a.N) - Number(b.N);
  const x = Buffer.from((a as { S: string }).S);
  const y = Buffer.from((b as { S: string }).S);
  return Buffer.compare(x, y);
}

/** The entry `item` contributes to `ix` under the model's rules, or undefined (sparse). */
function expectedEntry(ix: IndexSpec, item: Item): Item | undefined {
  if (!item[ix.pk[0]] || (ix.sk && !item[ix.sk[0]])) return undefined;
  if (ix.projection === 'ALL') return item;
  const names = ['pk', 'sk', ix.pk[0], ...(ix.sk ? [ix.sk[0]] : []), ...(ix.projection === 'KEYS_ONLY' ? [] : ix.projection.include)];
  return Object.fromEntries(names.filter((n) => item[n]).map((n) => [n, item[n]!]));
}

type SortCondition = { text: string; test: (v: V) => boolean; values: Record<string, V> };

function sortConditions(ix: IndexSpec): SortCondition[] {
  if (!ix.sk) return [{ text: '', test: () => true, values: {} }];
  const domain = ix.sk[0] === 'la' ? ['p', 'q', 'r'].map((S) => ({ S })) : ix.sk[0] === 'lb' ? ['-3', '1', '2', '2.5'].map((N) => ({ N })) : ['1', '2', '10'].map((N) => ({ N }));
  const out: SortCondition[] = [{ text: '', test: () => true, values: {} }];
  for (const v of domain) {
    for (const [op, t] of [['=', (c: number) => c === 0], ['<', (c: number) => c < 0], ['<=', (c: number) => c <= 0], ['>', (c: number) => c > 0], ['>=', (c: number) => c >= 0]] as const) {
      out.push({ text: ` AND #sk ${op} :v`, test: (x) => t(compareValue(x, v)), values: { ':v': v } });
    }
  }
  const [lo, , hi] = domain;
  out.push({ text: ' AND #sk BETWEEN :lo AND :hi', test: (x) => compareValue(x, lo!) >= 0 && compareValue(x, hi!) <= 0, values: { ':lo': lo!, ':hi': hi! } });
  return out;
}

function queryAll(db: Edgetable, request: Record<string, unknown>): Item[] {
  const items: Item[] = [];
  let start: unknown;
  for (;;) {
    const page = db.execute('Query', { ...request, Limit: 3, ...(start ? { ExclusiveStartKey: start } : {}) }) as { Items?: Item[]; LastEvaluatedKey?: unknown };
    items.push(...(page.Items ?? []));
    if (!page.LastEvaluatedKey) return items;
    start = page.LastEvaluatedKey;
  }
}

function checkIndexes(db: Edgetable, table: string, model: Map<string, Item>): void {
  const verification = db.verify(table);
  expect(verification.Indexes.map((i) => i.IndexName).sort()).toEqual(INDEXES.map((i) => i.name).sort());
  expect(verification.Differences).toBe(0);
  for (const ix of INDEXES) {
    const entries = [...model.values()].map((item) => expectedEntry(ix, item)).filter((e): e is Item => e !== undefined);
    const stored = verification.Indexes.find((i) => i.IndexName === ix.name)!;
    expect(stored.Stored).toBe(entries.length);
    const partitionValues = new Map(entries.map((e) => [JSON.stringify(e[ix.pk[0]]), e[ix.pk[0]]!]));
    for (const pkValue of partitionValues.values()) {
      for (const cond of sortConditions(ix)) {
        const want = entries
          .filter((e) => compareValue(e[ix.pk[0]]!, pkValue) === 0 && (!ix.sk || cond.test(e[ix.sk[0]]!)))
          .sort((a, b) => (ix.sk ? compareValue(a[ix.sk[0]]!, b[ix.sk[0]]!) : 0) || compareValue(a.pk!, b.pk!) || compareValue(a.sk!, b.sk!));
        const got = queryAll(db, {
          TableName: table,
          IndexName: ix.name,
          KeyConditionExpression: `#pk = :pk${cond.text}`,
          ExpressionAttributeNames: { '#pk': ix.pk[0], ...(cond.text ? { '#sk': ix.sk![0] } : {}) },
          ExpressionAttributeValues: { ':pk': pkValue, ...cond.values },
        });
        const label = `${ix.name} ${JSON.stringify(pkValue)}${cond.text} ${JSON.stringify(cond.values)}`;
        if (ix.kind === 'local') {
          // LSI ties order by the table sort key: the exact sequence is known.
          expect(got, label).toEqual(want);
        } else {
          // GSI ties order by the table key's hash: compare sort-key order and the multiset.
          if (ix.sk) expect(got.map((e) => e[ix.sk![0]]), label).toEqual(want.map((e) => e[ix.sk![0]]));
          expect(got.map((e) => JSON.stringify(sortKeys(e))).sort(), label).toEqual(want.map((e) => JSON.stringify(sortKeys(e))).sort());
        }
      }
    }
  }
}

describe('index maintenance against a model', () => {
  it('keeps every index equal to its recomputation after random writes of every kind', () => {
    const db = temp.open();
    let run = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
        const table = `Prop${run++}`;
        createTable(db, table);
        try {
          const model = new Map<string, Item>();
          for (const op of ops) apply(db, table, model, op);
          expect(snapshot(db, table)).toEqual([...model.values()].map((i) => JSON.stringify(sortKeys(i))).sort());
          checkIndexes(db, table, model);
        } finally {
          db.deleteTable({ TableName: table });
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
