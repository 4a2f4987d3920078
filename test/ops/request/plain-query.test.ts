/**
 * The plain Query (src/ops/request/plain-query.ts, src/expr/key-condition-template.ts), a property
 * of its typed request: which expressions have a template, which typed requests keep their key
 * condition as a template and which are plain, and that a request answers the same, items, order,
 * counts, LastEvaluatedKey, capacity and errors, whether or not it is plain. Two twins of a request
 * take the other paths: adding `Select: 'ALL_ATTRIBUTES'` (the default it states) makes it not
 * plain, and writing its attribute names as `#name` references makes the parse compile its key
 * condition.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Edgetable } from '../../../src/edgetable.js';
import { keyConditionTemplate } from '../../../src/expr/index.js';
import type { PrimaryKeySchema } from '../../../src/model/key-schema.js';
import type { KeyValue } from '../../../src/model/attribute-value.js';
import { isPlainQuery, plainKeyRange } from '../../../src/ops/request/plain-query.js';
import { parseQueryRequest } from '../../../src/ops/request/query-request.js';
import { tableRequest, useTempDbs } from '../temp-db.js';

describe('keyConditionTemplate', () => {
  it('reads the common shapes, clauses in the order written', () => {
    expect(keyConditionTemplate('pk = :p')).toEqual({ clauses: [{ name: 'pk', op: '=', placeholders: [':p'] }], placeholderCount: 1 });
    expect(keyConditionTemplate('pk = :p AND sk BETWEEN :a AND :b')).toEqual({
      clauses: [
        { name: 'pk', op: '=', placeholders: [':p'] },
        { name: 'sk', op: 'BETWEEN', placeholders: [':a', ':b'] },
      ],
      placeholderCount: 3,
    });
    expect(keyConditionTemplate('begins_with(sk, :a) and pk = :p')?.clauses).toEqual([
      { name: 'sk', op: 'begins_with', placeholders: [':a'] },
      { name: 'pk', op: '=', placeholders: [':p'] },
    ]);
    for (const op of ['<', '<=', '>', '>=', '=']) {
      expect(keyConditionTemplate(`(pk = :p) AND (sk ${op} :a)`)?.clauses[1]).toEqual({ name: 'sk', op, placeholders: [':a'] });
    }
  });

  it('has none for other texts, which the general path compiles and reports', () => {
    for (const text of [
      '',
      'pk = ',
      '#p = :p',
      ':p = pk',
      'pk = :p AND sk = :p',
      'pk = :p AND sk <> :a',
      'pk = :p OR sk = :a',
      'pk = :p AND sk = :a AND x = :b',
      'pk = :p AND begins_with(sk, sk)',
      'pk = :p AND contains(sk, :a)',
      'pk = :p AND sk IN (:a)',
      'pk.x = :p',
      'pk[0] = :p',
      'pk = sk',
      'NOT pk = :p',
      'pk = :p AND sk BETWEEN :a AND sk',
      'status = :p',
    ]) {
      expect(keyConditionTemplate(text), text).toBeUndefined();
    }
  });
});

describe('the typed request of a Query', () => {
  const base = { TableName: 'Items', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'a' } } };
  const kind = (request: object) => parseQueryRequest(request).keyCondition.kind;

  it('is plain for a templated key condition with any of the common members', () => {
    for (const request of [
      base,
      { ...base, IndexName: 'byGateway' },
      { ...base, ScanIndexForward: false, Limit: 10, ConsistentRead: true, ReturnConsumedCapacity: 'INDEXES' },
      { ...base, TableName: 'arn:aws:dynamodb:us-east-1:1:table/Items' },
      { ...base, KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b', ExpressionAttributeValues: { ':p': { S: 'a' }, ':a': { N: '-1' }, ':b': { N: '1' } } },
      { ...base, KeyConditionExpression: 'begins_with(sk, :a) AND pk = :p', ExpressionAttributeValues: { ':p': { N: '1' }, ':a': { S: 'x' } } },
    ]) {
      const req = parseQueryRequest(request);
      expect(isPlainQuery(req), JSON.stringify(request)).toBe(true);
      expect(req.keyCondition).toMatchObject({ kind: 'template', values: request.ExpressionAttributeValues });
    }
  });

  it('is not plain with a filter, a projection, a start key or Select, though its key condition stays a template', () => {
    for (const request of [
      { ...base, Select: 'ALL_ATTRIBUTES' },
      { ...base, ExclusiveStartKey: { pk: { S: 'a' } } },
    ]) {
      expect(isPlainQuery(parseQueryRequest(request)), JSON.stringify(request)).toBe(false);
      expect(kind(request)).toBe('template');
    }
    for (const request of [
      { ...base, FilterExpression: 'v = :p' },
      { ...base, ProjectionExpression: 'pk' },
      { ...base, KeyConditionExpression: '#p = :p', ExpressionAttributeNames: { '#p': 'pk' } },
    ]) {
      expect(isPlainQuery(parseQueryRequest(request)), JSON.stringify(request)).toBe(false);
      expect(kind(request)).toBe('resolved');
    }
  });

  it('compiles a key condition whose values are not exactly plain ones of its placeholders', () => {
    const long = `:${'v'.repeat(255)}`; // 256 bytes: the compile reports the key's length
    for (const [text, values] of [
      ['pk = :p', { ':p': { S: '' } }],
      ['pk = :p', { ':p': { N: '01' } }],
      ['pk = :p', { ':p': { N: '1.50' } }],
      ['pk = :p', { ':p': { B: 'AQ==' } }],
      ['pk = :p', { ':p': { S: 'x'.repeat(400) } }],
      ['pk = :p', { ':p': { S: 'a', N: '1' } }],
      ['pk = :p', { ':p': { S: 'a' }, ':x': { S: 'b' } }],
      ['pk = :p', { ':q': { S: 'a' } }],
      ['pk = :p', Object.assign(Object.create({ ':x': { S: 'b' } }), { ':p': { S: 'a' } })],
      ['pk = :p AND sk BETWEEN :a AND :b', { ':p': { S: 'a' }, ':a': { N: '2' }, ':b': { N: '1' } }],
      ['pk = :p AND sk BETWEEN :a AND :b', { ':p': { S: 'a' }, ':a': { N: '1' }, ':b': { S: '2' } }],
      ['pk = :p AND begins_with(sk, :a)', { ':p': { S: 'a' }, ':a': { N: '1' } }],
      [`pk = ${long}`, { [long]: { S: 'a' } }],
    ] as const) {
      const outcome = (() => {
        try {
          return kind({ ...base, KeyConditionExpression: text, ExpressionAttributeValues: values });
        } catch (e) {
          return (e as Error).name;
        }
      })();
      expect(outcome, `${text} ${JSON.stringify(values)}`).not.toBe('template');
    }
  });
});

describe('plainKeyRange', () => {
  const schema: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' }, sortKey: { name: 'sk', type: 'N' } };
  const range = (text: string, values: object) => plainKeyRange(keyConditionTemplate(text)!, schema, values as Record<string, KeyValue>);

  it('returns the range analyzeKeyCondition would, with the request values as given', () => {
    const p = { S: 'a' };
    const low = { N: '-1.5' };
    const high = { N: '2' };
    const out = range('sk BETWEEN :l AND :h AND pk = :p', { ':p': p, ':l': low, ':h': high });
    expect(out).toEqual({ partitionValue: p, sort: { op: 'BETWEEN', low, high } });
    expect(out!.partitionValue).toBe(p);
    expect(range('pk = :p', { ':p': p })).toEqual({ partitionValue: p });
    expect(range('pk = :p AND sk >= :l', { ':p': p, ':l': low })).toEqual({ partitionValue: p, sort: { op: '>=', value: low } });
  });

  it('refuses what does not fit the key schema, which the analysis reports', () => {
    const cases: [string, object][] = [
      ['pk = :p', {}],
      ['pk = :p', { ':q': { S: 'a' } }],
      ['pk = :p', { ':p': { N: '1' } }],
      ['pk < :p', { ':p': { S: 'a' } }],
      ['sk = :p', { ':p': { N: '1' } }],
      ['x = :p', { ':p': { S: 'a' } }],
      ['pk = :p AND x = :a', { ':p': { S: 'a' }, ':a': { S: 'a' } }],
      ['pk = :p AND sk = :a', { ':p': { S: 'a' }, ':a': { S: '1' } }],
      ['pk = :p AND pk = :a', { ':p': { S: 'a' }, ':a': { S: 'a' } }],
      ['sk = :p AND sk = :a', { ':p': { N: '1' }, ':a': { N: '1' } }],
      ['pk = :p AND begins_with(sk, :a)', { ':p': { S: 'a' }, ':a': { N: '1' } }],
      ['pk = :p AND sk BETWEEN :a AND :b', { ':p': { S: 'a' }, ':a': { N: '2' }, ':b': { N: '1' } }],
    ];
    for (const [text, values] of cases) expect(range(text, values), `${text} ${JSON.stringify(values)}`).toBeUndefined();
    const noSort: PrimaryKeySchema = { partitionKey: { name: 'pk', type: 'S' } };
    expect(plainKeyRange(keyConditionTemplate('pk = :p AND sk = :a')!, noSort, { ':p': { S: 'a' }, ':a': { N: '1' } } as Record<string, KeyValue>)).toBeUndefined();
  });
});

/** The optional Query members a generated request sets. */
function optionalMembers(r: { forward?: boolean; limit?: number; consistent?: boolean; capacity?: string }): Record<string, unknown> {
  return {
    ...(r.forward !== undefined ? { ScanIndexForward: r.forward } : {}),
    ...(r.limit !== undefined ? { Limit: r.limit } : {}),
    ...(r.consistent !== undefined ? { ConsistentRead: r.consistent } : {}),
    ...(r.capacity !== undefined ? { ReturnConsumedCapacity: r.capacity } : {}),
  };
}

/**
 * The request with each attribute name of its key condition written as a `#name` reference: the
 * same Query, whose key condition the parse compiles (a template has plain names only).
 */
function withNameReferences<R extends { KeyConditionExpression: string }>(req: R): R & { ExpressionAttributeNames: Record<string, string> } {
  const names: Record<string, string> = {};
  const KeyConditionExpression = req.KeyConditionExpression.replace(/(?<![:#\w])([a-z][a-z_]*)\b(?!\s*\()/g, (word) => {
    if (word === 'and' || word === 'between') return word;
    names[`#${word}`] = word;
    return `#${word}`;
  });
  return { ...req, KeyConditionExpression, ExpressionAttributeNames: names };
}

/** The outcome of a call: its result, or its error's name and message. */
function outcome(fn: () => unknown): unknown {
  try {
    return { result: fn() };
  } catch (e) {
    return { error: (e as Error).name, message: (e as Error).message };
  }
}

describe('Query answers the same through either path', () => {
  const temp = useTempDbs('file');
  let db: Edgetable;
  const partitions = ['a', 'b', 'ab', 'é'];
  beforeAll(() => {
    db = temp.open();
    db.createTable(tableRequest('Items', ['pk', 'S'], ['sk', 'N'], 3));
    db.createTable(tableRequest('Names', ['pk', 'N'], ['sk', 'S']));
    db.createTable(tableRequest('Hashed', ['pk', 'S']));
    for (const pk of partitions) {
      for (let i = -20; i <= 20; i++) {
        db.putItem({ TableName: 'Items', Item: { pk: { S: pk }, sk: { N: String(i / 4) }, v: { S: `${pk}${i}` }, n: { N: String(i * 3) } } });
        db.putItem({ TableName: 'Names', Item: { pk: { N: String(partitions.indexOf(pk)) }, sk: { S: `k${i + 20}${pk}` }, v: { N: String(i) } } });
      }
      db.putItem({ TableName: 'Hashed', Item: { pk: { S: pk }, v: { S: pk } } });
    }
  });

  /** A value for a placeholder: usually a plain value of the right type, sometimes one the general path reports or converts. */
  const value = (type: 'S' | 'N') =>
    fc.oneof(
      { weight: 8, arbitrary: type === 'S' ? fc.constantFrom('a', 'b', 'ab', 'é', 'k1', 'k2', 'k30', 'zz').map((S) => ({ S })) : fc.integer({ min: -24, max: 24 }).map((i) => ({ N: String(i / 4) })) },
      { weight: 1, arbitrary: fc.constantFrom<object>({ S: '' }, { N: '1.50' }, { N: '01' }, { S: '1' }, { N: '1' }, { B: 'AQ==' }, { S: 'a', N: '1' }, {}, { S: 'x'.repeat(400) }) },
    );

  /** Key types of each table (Missing: any), so that most generated values fit their key. */
  const TYPES: Record<string, ['S' | 'N', 'S' | 'N']> = { Items: ['S', 'N'], Names: ['N', 'S'], Hashed: ['S', 'N'], Missing: ['S', 'N'] };
  const rarely = fc.integer({ min: 0, max: 9 }).map((x) => x === 0);
  const request = fc
    .constantFrom('Items', 'Names', 'Hashed', 'Missing')
    .chain((table) => fc.record({
      table: fc.constant(table),
      sortOp: fc.constantFrom('none', '=', '<', '<=', '>', '>=', 'BETWEEN', 'begins_with', 'sk-first', 'other-attribute'),
      forward: fc.option(fc.boolean(), { nil: undefined }),
      limit: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
      consistent: fc.option(fc.boolean(), { nil: undefined }),
      capacity: fc.option(fc.constantFrom('NONE', 'TOTAL', 'INDEXES'), { nil: undefined }),
      extraValue: rarely,
      missingValue: rarely,
      p: value(TYPES[table]![0]),
      a: value(TYPES[table]![1]),
      b: value(TYPES[table]![1]),
    }))
    .map((r) => {
      const clauses: Record<string, string> = {
        none: 'pk = :p',
        '=': 'pk = :p AND sk = :a',
        '<': 'pk = :p AND sk < :a',
        '<=': 'pk = :p AND sk <= :a',
        '>': 'pk = :p AND sk > :a',
        '>=': 'pk = :p AND sk >= :a',
        BETWEEN: 'pk = :p AND sk BETWEEN :a AND :b',
        begins_with: 'pk = :p AND begins_with(sk, :a)',
        'sk-first': 'sk > :a AND pk = :p',
        'other-attribute': 'pk = :p AND v = :a',
      };
      const text = clauses[r.sortOp]!;
      const values: Record<string, unknown> = { ':p': r.p };
      if (text.includes(':a')) values[':a'] = r.a;
      if (text.includes(':b')) values[':b'] = r.b;
      if (r.extraValue) values[':x'] = { S: 'x' };
      if (r.missingValue) delete values[':p'];
      return {
        TableName: r.table,
        KeyConditionExpression: text,
        ExpressionAttributeValues: values,
        ...optionalMembers(r),
      };
    });

  it('gives equal items, counts, LastEvaluatedKey, capacity and errors (property)', () => {
    let recognised = 0;
    let runs = 0;
    fc.assert(
      fc.property(request, (req) => {
        runs++;
        const typed = outcome(() => parseQueryRequest(req)) as { result?: ReturnType<typeof parseQueryRequest> };
        const schema = db.describeTable({ TableName: req.TableName === 'Missing' ? 'Items' : req.TableName }).Table!;
        const keySchema: PrimaryKeySchema = {
          partitionKey: { name: 'pk', type: schema.AttributeDefinitions!.find((d) => d.AttributeName === 'pk')!.AttributeType as 'S' | 'N' },
          ...(schema.KeySchema!.length > 1 ? { sortKey: { name: 'sk', type: schema.AttributeDefinitions!.find((d) => d.AttributeName === 'sk')!.AttributeType as 'S' | 'N' } } : {}),
        };
        const plain = typed.result !== undefined && isPlainQuery(typed.result) ? typed.result.keyCondition : undefined;
        if (plain && req.TableName !== 'Missing' && plainKeyRange(plain.template, keySchema, plain.values)) recognised++;
        const answer = outcome(() => db.query(req as never));
        expect(answer).toEqual(outcome(() => db.query({ ...req, Select: 'ALL_ATTRIBUTES' } as never)));
        expect(answer).toEqual(outcome(() => db.query(withNameReferences(req) as never)));
      }),
      { numRuns: 600, seed: 16 },
    );
    // The comparison means something only if the shortcut answered a good share of the requests.
    expect(recognised).toBeGreaterThan(runs / 5);
  });

  it('pages a partition the same way, LastEvaluatedKey included', () => {
    const req = { TableName: 'Items', KeyConditionExpression: 'pk = :p AND sk BETWEEN :a AND :b', ExpressionAttributeValues: { ':p': { S: 'ab' }, ':a': { N: '-3' }, ':b': { N: '4.5' } } };
    for (const forward of [true, false]) {
      const plain = db.query({ ...req, ScanIndexForward: forward, Limit: 7, ReturnConsumedCapacity: 'TOTAL' });
      const general = db.query({ ...req, ScanIndexForward: forward, Limit: 7, ReturnConsumedCapacity: 'TOTAL', Select: 'ALL_ATTRIBUTES' });
      expect(plain).toEqual(general);
      expect(plain.Items).toHaveLength(7);
      expect(plain.LastEvaluatedKey).toEqual(plain.Items![6]!.pk && { pk: plain.Items![6]!.pk, sk: plain.Items![6]!.sk });
    }
  });
});

describe('Query on an index answers the same through either path', () => {
  const temp = useTempDbs('file');
  let db: Edgetable;
  beforeAll(() => {
    db = temp.open();
    db.createTable({
      ...tableRequest('Sensors', ['sensor', 'S'], ['ts', 'N'], 2),
      AttributeDefinitions: [
        { AttributeName: 'sensor', AttributeType: 'S' },
        { AttributeName: 'ts', AttributeType: 'N' },
        { AttributeName: 'gw', AttributeType: 'S' },
        { AttributeName: 'bat', AttributeType: 'N' },
      ],
      LocalSecondaryIndexes: [{ IndexName: 'byBattery', KeySchema: [{ AttributeName: 'sensor', KeyType: 'HASH' }, { AttributeName: 'bat', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
      GlobalSecondaryIndexes: [
        { IndexName: 'byGateway', KeySchema: [{ AttributeName: 'gw', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
        { IndexName: 'gatewayKeys', KeySchema: [{ AttributeName: 'gw', KeyType: 'HASH' }, { AttributeName: 'ts', KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } },
        { IndexName: 'gatewayBattery', KeySchema: [{ AttributeName: 'gw', KeyType: 'HASH' }, { AttributeName: 'bat', KeyType: 'RANGE' }], Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['v'] } },
        { IndexName: 'byGatewayOnly', KeySchema: [{ AttributeName: 'gw', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
      ],
    });
    for (const sensor of ['s1', 's2', 's3']) {
      for (let i = 0; i < 30; i++) {
        // Every third reading has no gateway: the global indexes are sparse.
        const gw: Record<string, { S: string }> = i % 3 === 2 ? {} : { gw: { S: `g${i % 2}` } };
        db.putItem({ TableName: 'Sensors', Item: { sensor: { S: sensor }, ts: { N: String(i) }, bat: { N: String((i * 7) % 11) }, v: { S: `${sensor}-${i}` }, other: { N: String(i) }, ...gw } });
      }
    }
  });

  /** Each index's key attributes (the names used in the generated key conditions). */
  const INDEXES: Record<string, [string, string | undefined]> = {
    byBattery: ['sensor', 'bat'],
    byGateway: ['gw', 'ts'],
    gatewayKeys: ['gw', 'ts'],
    gatewayBattery: ['gw', 'bat'],
    byGatewayOnly: ['gw', undefined],
    noSuchIndex: ['gw', 'ts'],
  };
  const request = fc
    .record({
      index: fc.constantFrom(...Object.keys(INDEXES)),
      sortOp: fc.constantFrom('none', '=', '<', '>=', 'BETWEEN', 'table-key'),
      forward: fc.option(fc.boolean(), { nil: undefined }),
      limit: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
      consistent: fc.option(fc.boolean(), { nil: undefined }),
      capacity: fc.option(fc.constantFrom('NONE', 'TOTAL', 'INDEXES'), { nil: undefined }),
      p: fc.integer({ min: 0, max: 3 }),
      a: fc.integer({ min: -1, max: 31 }),
      b: fc.integer({ min: -1, max: 31 }),
    })
    .map((r) => {
      const [hash, range] = INDEXES[r.index]!;
      const sort = range ?? 'ts';
      const clauses: Record<string, string> = {
        none: `${hash} = :p`,
        '=': `${hash} = :p AND ${sort} = :a`,
        '<': `${hash} = :p AND ${sort} < :a`,
        '>=': `${hash} = :p AND ${sort} >= :a`,
        BETWEEN: `${hash} = :p AND ${sort} BETWEEN :a AND :b`,
        'table-key': `sensor = :p`,
      };
      const text = clauses[r.sortOp]!;
      // Mostly a partition key value the index holds; sometimes one it does not.
      const partitionValues = hash === 'sensor' || r.sortOp === 'table-key' ? ['s1', 's2', 's3', 'zz'] : ['g0', 'g1', 'g0', 'zz'];
      const values: Record<string, unknown> = { ':p': { S: partitionValues[r.p] } };
      if (text.includes(':a')) values[':a'] = { N: String(r.a) };
      if (text.includes(':b')) values[':b'] = { N: String(r.b) };
      return {
        TableName: 'Sensors',
        IndexName: r.index,
        KeyConditionExpression: text,
        ExpressionAttributeValues: values,
        ...optionalMembers(r),
      };
    });

  it('gives equal items, counts, LastEvaluatedKey, capacity and errors as with Select ALL_PROJECTED_ATTRIBUTES stated (property)', () => {
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(request, (req) => {
        runs++;
        const plain = outcome(() => db.query(req as never));
        if ((plain as { result?: { Items?: unknown[] } }).result?.Items?.length) answered++;
        expect(plain).toEqual(outcome(() => db.query({ ...req, Select: 'ALL_PROJECTED_ATTRIBUTES' } as never)));
        expect(plain).toEqual(outcome(() => db.query(withNameReferences(req) as never)));
      }),
      { numRuns: 500, seed: 16 },
    );
    // The comparison means something only if many requests found items.
    expect(answered).toBeGreaterThan(runs / 6);
  });

  it('reads a plain index Query from its template', () => {
    const req = { TableName: 'Sensors', IndexName: 'byGateway', KeyConditionExpression: 'gw = :g AND ts > :t', ExpressionAttributeValues: { ':g': { S: 'g0' }, ':t': { N: '10' } } };
    expect(isPlainQuery(parseQueryRequest(req))).toBe(true);
    const out = db.query(req);
    // g0 holds the even readings that have a gateway (not i % 3 === 2), of each of the 3 sensors.
    const expected = [12, 16, 18, 22, 24, 28].flatMap((ts) => [String(ts), String(ts), String(ts)]);
    expect(out.Items!.map((i) => i.ts!.N)).toEqual(expected);
    expect(out.Items![0]).toHaveProperty('other'); // ALL projection: the whole item
    const keysOnly = db.query({ ...req, IndexName: 'gatewayKeys' });
    expect(Object.keys(keysOnly.Items![0]!).sort()).toEqual(['gw', 'sensor', 'ts']);
  });
});
