import { describe, expect, it } from 'vitest';
import { compileExpressions, type ExpressionRequest } from '../../src/expr/index.js';
import type { ValidationException } from '../../src/model/errors.js';

const N1 = { N: '1' };
const S1 = { S: 'x' };
const C = 'Invalid ConditionExpression: ';
const U = 'Invalid UpdateExpression: ';
const P = 'Invalid ProjectionExpression: ';
const F = 'Invalid FilterExpression: ';
const K = 'Invalid KeyConditionExpression: ';

function cond(expression: string, values?: Record<string, unknown>, names?: Record<string, string>): ExpressionRequest {
  return {
    ConditionExpression: expression,
    ...(values ? { ExpressionAttributeValues: values } : {}),
    ...(names ? { ExpressionAttributeNames: names } : {}),
  };
}
function upd(expression: string, values?: Record<string, unknown>, names?: Record<string, string>): ExpressionRequest {
  return {
    UpdateExpression: expression,
    ...(values ? { ExpressionAttributeValues: values } : {}),
    ...(names ? { ExpressionAttributeNames: names } : {}),
  };
}

/** [request, exact ValidationException message]. */
const ERRORS: readonly (readonly [ExpressionRequest, string])[] = [
  // syntax errors: token and the text from the token before to the token after
  [cond('a = '), `${C}Syntax error; token: "<EOF>", near: "= "`],
  [cond('foo'), `${C}Syntax error; token: "<EOF>", near: "foo"`],
  [cond('a = :v :w', { ':v': N1, ':w': N1 }), `${C}Syntax error; token: ":w", near: ":v :w"`],
  [cond('a == :v', { ':v': N1 }), `${C}Syntax error; token: "=", near: "== :v"`],
  [cond('a = :v AND', { ':v': N1 }), `${C}Syntax error; token: "<EOF>", near: "AND"`],
  [cond('a = :v OR OR b = :v', { ':v': N1 }), `${C}Syntax error; token: "OR", near: "OR OR b"`],
  [cond('a ! :v', { ':v': N1 }), `${C}Syntax error; token: "!", near: "a ! :v"`],
  [cond('!!!'), `${C}Syntax error; token: "!", near: "!!"`],
  [cond('a = :v)', { ':v': N1 }), `${C}Syntax error; token: ")", near: ":v)"`],
  [cond('(a = :v', { ':v': N1 }), `${C}Syntax error; token: "<EOF>", near: ":v"`],
  [cond('a BETWEEN :v', { ':v': N1 }), `${C}Syntax error; token: "<EOF>", near: ":v"`],
  [cond('a BETWEEN :v OR :w', { ':v': N1, ':w': N1 }), `${C}Syntax error; token: "OR", near: ":v OR :w"`],
  [cond('a IN :v', { ':v': N1 }), `${C}Syntax error; token: ":v", near: "IN :v"`],
  [cond('a IN ()'), `${C}Syntax error; token: ")", near: "()"`],
  [cond('a.b. = :v', { ':v': N1 }), `${C}Syntax error; token: "=", near: ". = :v"`],
  [cond('a[x] = :v', { ':v': N1 }), `${C}Syntax error; token: "x", near: "[x]"`],
  [cond('a[-1] = :v', { ':v': N1 }), `${C}Syntax error; token: "-", near: "[-1"`],
  [cond('1a = :v', { ':v': N1 }), `${C}Syntax error; token: "1", near: "1a"`],
  [cond('a-b = :v', { ':v': N1 }), `${C}Syntax error; token: "-", near: "a-b"`],
  [cond('# = :v', { ':v': N1 }), `${C}Syntax error; token: "#", near: "# ="`],
  [cond('a = :', {}), `ExpressionAttributeValues must not be empty`],
  [cond('a = : v', { ':v': N1 }), `${C}Syntax error; token: ":", near: "= : v"`],
  [cond('a < b < c'), `${C}Syntax error; token: "<", near: "b < c"`],
  [cond('NOT'), `${C}Syntax error; token: "<EOF>", near: "NOT"`],
  [cond('a = :v AND = :v', { ':v': N1 }), `${C}Syntax error; token: "=", near: "AND = :v"`],
  [cond('a = b + c'), `${C}Syntax error; token: "+", near: "b + c"`],
  [cond('size(a)'), `${C}The function is not allowed to be used this way in an expression; function: size`],
  // empty and size limits
  [cond(''), `${C}The expression can not be empty;`],
  [cond('   '), `${C}The expression can not be empty;`],
  [upd(''), `${U}The expression can not be empty;`],
  [{ ProjectionExpression: ' ' }, `${P}The expression can not be empty;`],
  [{ FilterExpression: '' }, `${F}The expression can not be empty;`],
  [{ KeyConditionExpression: '' }, `${K}The expression can not be empty;`],
  [cond(`a = :v${' '.repeat(4092)}`, { ':v': N1 }), `${C}Expression size has exceeded the maximum allowed size; expression size: 4098`],
  [cond(`a = :v AND b = :v${' '.repeat(4100)}`, { ':v': N1 }), `${C}Expression size has exceeded the maximum allowed size; expression size: 4117`],
  // An UpdateExpression's size message has no `expression size: N` tail (2026 capture).
  [upd(`SET a = :v${' '.repeat(4100)}`, { ':v': N1 }), `${U}Expression size has exceeded the maximum allowed size;`],
  [
    cond(Array.from({ length: 151 }, () => 'a = :v').join(' AND '), { ':v': N1 }),
    `${C}The expression contains too many operators; operator count: 301`,
  ],
  [
    cond(`a IN (${Array.from({ length: 101 }, () => ':v').join(', ')})`, { ':v': N1 }),
    `${C}The IN operator is provided with too many operands; number of operands: 101`,
  ],
  // parentheses
  [cond('((a = :v))', { ':v': N1 }), `${C}The expression has redundant parentheses;`],
  [cond('((a = :v)) AND b = :v', { ':v': N1 }), `${C}The expression has redundant parentheses;`],
  [cond('((a)) = :v', { ':v': N1 }), `${C}The expression has redundant parentheses;`],
  [cond('((a = :v)) AND name = :v', { ':v': N1 }), `${C}The expression has redundant parentheses;`],
  // reserved words
  [cond('name = :v', { ':v': N1 }), `${C}Attribute name is a reserved keyword; reserved keyword: name`],
  [cond('a.Size = :v', { ':v': N1 }), `${C}Attribute name is a reserved keyword; reserved keyword: Size`],
  [cond('a = :v AND TABLE = :v', { ':v': N1 }), `${C}Attribute name is a reserved keyword; reserved keyword: TABLE`],
  [upd('SET status = :v', { ':v': N1 }), `${U}Attribute name is a reserved keyword; reserved keyword: status`],
  [upd('REMOVE data'), `${U}Attribute name is a reserved keyword; reserved keyword: data`],
  [{ ProjectionExpression: 'a, year' }, `${P}Attribute name is a reserved keyword; reserved keyword: year`],
  [{ FilterExpression: 'count > :v', ExpressionAttributeValues: { ':v': N1 } }, `${F}Attribute name is a reserved keyword; reserved keyword: count`],
  // undefined and unused placeholders
  [cond('#x = :v', { ':v': N1 }), `${C}An expression attribute name used in the document path is not defined; attribute name: #x`],
  [cond('a = :x'), `${C}An expression attribute value used in expression is not defined; attribute value: :x`],
  [cond('a = :x', { ':v': N1 }), `${C}An expression attribute value used in expression is not defined; attribute value: :x`],
  [upd('SET #a = :v', { ':v': N1 }), `${U}An expression attribute name used in the document path is not defined; attribute name: #a`],
  [{ ProjectionExpression: '#p' }, `${P}An expression attribute name used in the document path is not defined; attribute name: #p`],
  [cond('a = :v', { ':v': N1 }, { '#a': 'a', '#b': 'b' }), 'Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}'],
  [cond('a = :v', { ':v': N1, ':w': N1 }), 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}'],
  [cond('#a = :v', { ':v': N1, ':w': N1, ':z': N1 }, { '#a': 'a' }), 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:w, :z}'],
  [
    { ConditionExpression: 'a = :v', ProjectionExpression: 'b', ExpressionAttributeValues: { ':v': N1 }, ExpressionAttributeNames: { '#c': 'c' } },
    'Value provided in ExpressionAttributeNames unused in expressions: keys: {#c}',
  ],
  // the names/values maps themselves
  [cond('a = :v', {}), 'ExpressionAttributeValues must not be empty'],
  [cond('a = b', undefined, {}), 'ExpressionAttributeNames must not be empty'],
  [{ ExpressionAttributeNames: { '#a': 'a' } }, 'ExpressionAttributeNames can only be specified when using expressions'],
  [{ ExpressionAttributeValues: { ':a': N1 } }, 'ExpressionAttributeValues can only be specified when using expressions'],
  [{ ProjectionExpression: 'a', ExpressionAttributeValues: { ':a': N1 } }, 'ExpressionAttributeValues can only be specified when using expressions'],
  [cond('a = :v', { v: N1 }), 'ExpressionAttributeValues contains invalid key: Syntax error; key: "v"'],
  [cond('a = :v', { ':v-1': N1 }), 'ExpressionAttributeValues contains invalid key: Syntax error; key: ":v-1"'],
  [cond('a = b', undefined, { a: 'a' }), 'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"'],
  [cond('a = b', undefined, { '#a.b': 'a' }), 'ExpressionAttributeNames contains invalid key: Syntax error; key: "#a.b"'],
  [cond('#a = :v', { ':v': N1 }, { '#a': '' }), 'ExpressionAttributeNames contains invalid value: Empty attribute name for key #a'],
  [cond('#a = #b', undefined, { '#a': 'a', '#b': '' }), 'ExpressionAttributeNames contains invalid value: Empty attribute name for key #b'],
  // a value's own error, unwrapped: the current value checker (model/value-layer.ts)
  [cond('a = :v', { ':v': { N: 'abc' } }), 'The parameter cannot be converted to a numeric value: abc'],
  [cond('a = :v', { ':v': { N: '1e200' } }), 'Number overflow. Attempting to store a number with magnitude larger than supported range'],
  [cond('a = :v', { ':v': {} }), 'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes'],
  [cond('a = :v', { ':v': { SS: [] } }), 'One or more parameter values were invalid: An string set  may not be empty'],
  // functions
  [cond('foo(a)'), `${C}Invalid function name; function: foo`],
  [cond('BEGINS_WITH(a, :v)', { ':v': S1 }), `${C}Invalid function name; function: BEGINS_WITH`],
  [cond('if_not_exists(a, :v) = :v', { ':v': S1 }), `${C}The function is not allowed in a condition expression; function: if_not_exists`],
  [cond('list_append(a, :v)', { ':v': S1 }), `${C}The function is not allowed in a condition expression; function: list_append`],
  [cond('begins_with(a, :v) = :v', { ':v': S1 }), `${C}The function is not allowed to be used this way in an expression; function: begins_with`],
  [cond('size(attribute_exists(a)) = :v', { ':v': S1 }), `${C}The function is not allowed to be used this way in an expression; function: attribute_exists`],
  [cond('attribute_exists(a, b)'), `${C}Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2`],
  [cond('begins_with(a)'), `${C}Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1`],
  [cond('contains(a, b, c)'), `${C}Incorrect number of operands for operator or function; operator or function: contains, number of operands: 3`],
  [cond('size(a, b) = :v', { ':v': N1 }), `${C}Incorrect number of operands for operator or function; operator or function: size, number of operands: 2`],
  [cond('attribute_exists(:v)', { ':v': S1 }), `${C}Operator or function requires a document path; operator or function: attribute_exists`],
  [cond('attribute_not_exists(:v)', { ':v': S1 }), `${C}Operator or function requires a document path; operator or function: attribute_not_exists`],
  [cond('begins_with(a, :v)', { ':v': N1 }), `${C}Incorrect operand type for operator or function; operator or function: begins_with, operand type: N`],
  [cond('begins_with(a, :v)', { ':v': { BOOL: true } }), `${C}Incorrect operand type for operator or function; operator or function: begins_with, operand type: BOOL`],
  [cond('begins_with(a, :v)', { ':v': { SS: ['a'] } }), `${C}Incorrect operand type for operator or function; operator or function: begins_with, operand type: SS`],
  [cond('attribute_type(a, :v)', { ':v': N1 }), `${C}Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N`],
  [cond('attribute_type(a, :v)', { ':v': { S: 'STRING' } }), `${C}Invalid attribute type name found; type: STRING, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}`],
  [cond('attribute_type(a, :v)', { ':v': { S: 's' } }), `${C}Invalid attribute type name found; type: s, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}`],
  [cond('size(:v) = :v', { ':v': N1 }), `${C}Incorrect operand type for operator or function; operator or function: size, operand type: N`],
  [cond('contains(a, a)'), `${C}The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [a]`],
  [cond('contains(#a, a)', undefined, { '#a': 'a' }), `${C}The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [a]`],
  [cond('a.b[1] = a.b[1]'), `${C}The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a, b, [1]]`],
  [cond('begins_with(a, a)'), `${C}The first operand must be distinct from the remaining operands for this operator or function; operator: begins_with, first operand: [a]`],
  [cond('a <> a'), `${C}The first operand must be distinct from the remaining operands for this operator or function; operator: <>, first operand: [a]`],
  // BETWEEN bounds
  [
    cond('a BETWEEN :h AND :l', { ':h': { N: '5' }, ':l': { N: '4' } }),
    `${C}The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:4}`,
  ],
  [
    cond('a BETWEEN :h AND :l', { ':h': { S: 'b' }, ':l': { S: 'a' } }),
    `${C}The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}`,
  ],
  [
    cond('a BETWEEN :h AND :l', { ':h': { N: '5' }, ':l': { S: 'a' } }),
    `${C}The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {S:a}`,
  ],
  [
    { FilterExpression: 'a BETWEEN :h AND :l', ExpressionAttributeValues: { ':h': { N: '10' }, ':l': { N: '9.5' } } },
    `${F}The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:9.5}`,
  ],
  // path depth
  [cond(`a${'.b'.repeat(32)} = :v`, { ':v': N1 }), `${C}The document path has too many nesting levels; nesting levels: 33`],
  // update expressions
  [upd('SET a = :v SET b = :v', { ':v': N1 }), `${U}The "SET" section can only be used once in an update expression;`],
  [upd('REMOVE a REMOVE b'), `${U}The "REMOVE" section can only be used once in an update expression;`],
  [upd('ADD a :v add b :v', { ':v': N1 }), `${U}The "ADD" section can only be used once in an update expression;`],
  [upd('SET a = :v, a = :v', { ':v': N1 }), `${U}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]`],
  [upd('SET a = :v REMOVE a.b', { ':v': N1 }), `${U}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]`],
  [upd('SET a.b = :v REMOVE a', { ':v': N1 }), `${U}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]`],
  [upd('SET #a = :v, a = :v', { ':v': N1 }, { '#a': 'a' }), `${U}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]`],
  [upd('SET l[0] = :v, l[0].b = :v', { ':v': N1 }), `${U}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [l, [0]], path two: [l, [0], b]`],
  [upd('SET a.b = :v, a[0] = :v', { ':v': N1 }), `${U}Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]`],
  [upd('ADD a :v', { ':v': S1 }), `${U}Incorrect operand type for operator or function; operator: ADD, operand type: STRING`],
  [upd('ADD a :v', { ':v': { L: [] } }), `${U}Incorrect operand type for operator or function; operator: ADD, operand type: LIST`],
  [upd('ADD a :v', { ':v': { M: {} } }), `${U}Incorrect operand type for operator or function; operator: ADD, operand type: MAP`],
  [upd('ADD a :v', { ':v': { BOOL: true } }), `${U}Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN`],
  [upd('ADD a :v', { ':v': { B: 'AQ==' } }), `${U}Incorrect operand type for operator or function; operator: ADD, operand type: BINARY`],
  [upd('DELETE a :v', { ':v': N1 }), `${U}Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER`],
  [upd('DELETE a :v', { ':v': { NULL: true } }), `${U}Incorrect operand type for operator or function; operator: DELETE, operand type: NULL`],
  [upd('SET a = b + :v', { ':v': S1 }), `${U}Incorrect operand type for operator or function; operator or function: +, operand type: S`],
  [upd('SET a = :v - b', { ':v': { SS: ['a'] } }), `${U}Incorrect operand type for operator or function; operator or function: -, operand type: SS`],
  [upd('SET a = list_append(a, :v)', { ':v': S1 }), `${U}Incorrect operand type for operator or function; operator or function: list_append, operand type: S`],
  [upd('SET a = foo(b)'), `${U}Invalid function name; function: foo`],
  [upd('SET a = size(b)'), `${U}The function is not allowed in an update expression; function: size`],
  [upd('SET a = contains(b, :v)', { ':v': S1 }), `${U}The function is not allowed in an update expression; function: contains`],
  [upd('SET a = if_not_exists(:v, :v)', { ':v': S1 }), `${U}Operator or function requires a document path; operator or function: if_not_exists`],
  [upd('SET a = list_append(:v)', { ':v': { L: [] } }), `${U}Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1`],
  [upd('SET a = :v, b', { ':v': N1 }), `${U}Syntax error; token: "<EOF>", near: "b"`],
  [upd('SET a :v', { ':v': N1 }), `${U}Syntax error; token: ":v", near: "a :v"`],
  [upd('SET a = b + c + d'), `${U}Syntax error; token: "+", near: "c + d"`],
  [upd('SET a = numx / :v', { ':v': N1 }), `${U}Syntax error; token: "/", near: "numx / :v"`],
  [upd('SET a = b +'), `${U}Syntax error; token: "<EOF>", near: "+"`],
  [upd('SET'), `${U}Syntax error; token: "<EOF>", near: "SET"`],
  [upd('UPDATE a = :v', { ':v': N1 }), `${U}Syntax error; token: "UPDATE", near: "UPDATE a"`],
  [upd('ADD a b'), `${U}Syntax error; token: "b", near: "a b"`],
  [upd('DELETE a'), `${U}Syntax error; token: "<EOF>", near: "a"`],
  [upd('REMOVE a, SET b = :v', { ':v': N1 }), `${U}Syntax error; token: "SET", near: ", SET b"`],
  [upd('SET a = :v WHERE b', { ':v': N1 }), `${U}Syntax error; token: "WHERE", near: ":v WHERE b"`],
  [upd('SET a = :v AND b = :v', { ':v': N1 }), `${U}Syntax error; token: "AND", near: ":v AND b"`],
  // projection expressions
  [{ ProjectionExpression: 'a b' }, `${P}Syntax error; token: "b", near: "a b"`],
  [{ ProjectionExpression: 'a,' }, `${P}Syntax error; token: "<EOF>", near: ","`],
  [{ ProjectionExpression: '!!!' }, `${P}Syntax error; token: "!", near: "!!"`],
  [{ ProjectionExpression: 'size(a)' }, `${P}Syntax error; token: "(", near: "size(a"`],
  [{ ProjectionExpression: 'a, a' }, `${P}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]`],
  [{ ProjectionExpression: 'a, a.b' }, `${P}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]`],
  [{ ProjectionExpression: 'a.b, a' }, `${P}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]`],
  [{ ProjectionExpression: 'l[0], l[0].x' }, `${P}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [l, [0]], path two: [l, [0], x]`],
  [{ ProjectionExpression: 'a[0], a.b' }, `${P}Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [0]], path two: [a, b]`],
  [
    { ProjectionExpression: '#a, a', ExpressionAttributeNames: { '#a': 'a' } },
    `${P}Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]`,
  ],
  // key conditions parse as conditions
  [{ KeyConditionExpression: 'pk = ', ExpressionAttributeValues: { ':v': N1 } }, `${K}Syntax error; token: "<EOF>", near: "= "`],
  [{ KeyConditionExpression: 'pk = :hashId a', ExpressionAttributeValues: { ':hashId': N1 } }, `${K}Syntax error; token: "a", near: ":hashId a"`],
  [{ KeyConditionExpression: '((pk = :v))', ExpressionAttributeValues: { ':v': N1 } }, `${K}The expression has redundant parentheses;`],
];

describe('compileExpressions rejects invalid requests with DynamoDB messages', () => {
  for (const [req, message] of ERRORS) it(JSON.stringify(req), () => {
    let error: unknown;
    try {
      compileExpressions(req);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('ValidationException');
    expect((error as Error).message).toBe(message);
  });

  it("the older value checker wraps a value's error and keeps its family", () => {
    const older = (value: unknown) => {
      try {
        compileExpressions(cond('a = :v', { ':v': value }), 'older');
      } catch (e) {
        return e as ValidationException;
      }
      throw new Error('expected a throw');
    };
    const forKey = (m: string) => `ExpressionAttributeValues contains invalid value: ${m} for key :v`;
    expect(older({ N: '' }).message).toBe(forKey('The parameter cannot be converted to a numeric value'));
    expect(older({ N: '1e2147483647' }).message).toBe(forKey('Number underflow. Attempting to store a number with magnitude smaller than supported range'));
    expect(older({ SS: ['b', 'a', 'b'] }).message).toBe(forKey('One or more parameter values were invalid: Input collection [b, a, b] contains duplicates.'));
    expect(older({}).message).toBe(forKey('Supplied AttributeValue is empty, must contain exactly one of the supported datatypes'));
  });

  it('counts placeholders used by any expression of the request', () => {
    const compiled = compileExpressions({
      UpdateExpression: 'SET #a = :v',
      ConditionExpression: 'attribute_exists(#b) AND #a <> :w',
      ExpressionAttributeNames: { '#a': 'a', '#b': 'b' },
      ExpressionAttributeValues: { ':v': N1, ':w': S1 },
    });
    expect(compiled.update).toBeDefined();
    expect(compiled.condition).toBeDefined();
  });

  it('accepts keywords in any case, placeholders for reserved words and 300 operators', () => {
    expect(() => compileExpressions(cond('#n = :v aNd b BeTwEeN :v AnD :v', { ':v': N1 }, { '#n': 'name' }))).not.toThrow();
    expect(() => compileExpressions(cond(Array.from({ length: 150 }, () => 'a = :v').join(' AND '), { ':v': N1 }))).not.toThrow();
    expect(() => compileExpressions(cond(`a IN (${Array.from({ length: 100 }, () => ':v').join(', ')})`, { ':v': N1 }))).not.toThrow();
    expect(() => compileExpressions(cond(`a = :v${' '.repeat(4090)}`, { ':v': N1 }))).not.toThrow();
    expect(() => compileExpressions(cond(`a${'.b'.repeat(31)} = :v`, { ':v': N1 }))).not.toThrow();
  });
});
