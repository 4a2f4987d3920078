/**
 * Compiles a parsed PartiQL statement into the expression-API request that runs it, so metering,
 * indexes, conditions and the change log behave exactly as for that request:
 *
 *   SELECT, WHERE pk = v [AND sk = v] (table, nothing else)  -> GetItem
 *   SELECT, WHERE pk = v [AND sk cond] [AND filter]           -> Query (ORDER BY sk -> ScanIndexForward)
 *   SELECT, any other WHERE or none                           -> Scan with FilterExpression
 *   INSERT                                                    -> PutItem if attribute_not_exists(pk)
 *   UPDATE ... WHERE key [AND cond]                           -> UpdateItem if attribute_exists(pk) [AND cond]
 *                                                                (SET a = set_add(a, v) -> ADD, set_delete -> DELETE)
 *   DELETE ... WHERE key [AND cond]                           -> DeleteItem [if attribute_not_exists(pk) OR (cond)]
 *   RETURNING ALL|MODIFIED OLD|NEW *                          -> ReturnValues ALL_OLD ... UPDATED_NEW
 *   EXISTS(SELECT ... WHERE key AND cond)                     -> a TransactWriteItems ConditionCheck
 *
 * Key equalities are `path = value` conjuncts at the top of WHERE on a key attribute of the target
 * (`value = path` too). A Query whose remaining conjuncts name a key attribute runs as a Scan,
 * since a FilterExpression may not name key attributes (ascending ORDER BY still holds there;
 * descending is refused).
 */
import type { WireAttributeValue } from '../model/attribute-value.js';
import { ResourceNotFoundException, ValidationException } from '../model/errors.js';
import type { Table } from '../table/table.js';
import type { Condition, ExistsStatement, Operand, SelectStatement, Statement, Target, UpdateStatement, Value } from './ast.js';
import { ExpressionWriter } from './expression-writer.js';
import { PartiqlStatementError } from './partiql-errors.js';

export type CompiledStatement =
  | { readonly op: 'GetItem' | 'Query' | 'Scan'; readonly request: Record<string, unknown> }
  | { readonly op: 'PutItem'; readonly request: Record<string, unknown>; readonly insert: true }
  | { readonly op: 'UpdateItem' | 'DeleteItem' | 'ConditionCheck'; readonly request: Record<string, unknown> };

export type FindTable = (name: string) => Table | undefined;

const WHERE_KEYS = 'Where clause does not contain a mandatory equality on all key attributes';
export const ORDER_DESC_NEEDS_QUERY = 'ORDER BY DESC needs the sort key conditions of the WHERE clause to form one key condition (one comparison, BETWEEN or begins_with on the sort key)';

export function compileStatement(statement: Statement, parameters: readonly unknown[], findTable: FindTable): CompiledStatement {
  const w = new ExpressionWriter(parameters);
  switch (statement.kind) {
    case 'select':
      return compileSelect(statement, w, findTable);
    case 'insert': {
      const table = requireTable(findTable, statement.table);
      const item = w.bindItem(statement.item);
      if (!('M' in item)) throw new ValidationException('Unsupported type passed for INSERT: the value must be a tuple');
      const pk = table.def.keySchema.partitionKey.name;
      return { op: 'PutItem', insert: true, request: { TableName: table.name, Item: item.M, ConditionExpression: `attribute_not_exists(${w.name(pk)})`, ...w.attributes() } };
    }
    case 'update': {
      const table = requireTable(findTable, statement.table);
      const { key, rest } = fullKey(table, statement.where, w);
      const clauses = updateClauses(statement, w);
      const exists = `attribute_exists(${w.name(table.def.keySchema.partitionKey.name)})`;
      const returning = statement.returning ? { ReturnValues: statement.returning } : {};
      return { op: 'UpdateItem', request: { TableName: table.name, Key: key, UpdateExpression: clauses.join(' '), ConditionExpression: joinAnd([exists, ...rest.map((c) => w.condition(c))]), ...returning, ...w.attributes() } };
    }
    case 'delete': {
      const table = requireTable(findTable, statement.table);
      const { key, rest } = fullKey(table, statement.where, w);
      const returning = statement.returning ? { ReturnValues: statement.returning } : {};
      // The WHERE's further conditions bind only an item that is there: deleting a missing one
      // succeeds and deletes nothing (DynamoDB's PartiQL DELETE reference).
      const condition = rest.length > 0 ? { ConditionExpression: `attribute_not_exists(${w.name(table.def.keySchema.partitionKey.name)}) OR (${joinAnd(rest.map((c) => w.condition(c)))})` } : {};
      return { op: 'DeleteItem', request: { TableName: table.name, Key: key, ...condition, ...returning, ...w.attributes() } };
    }
    case 'exists':
      return compileExists(statement, w, findTable);
  }
}

/**
 * UpdateExpression clauses: `SET p = v`, `REMOVE p`, and `SET s = set_add(s, v)` /
 * `set_delete(s, v)` as `ADD s v` / `DELETE s v`.
 */
function updateClauses(statement: UpdateStatement, w: ExpressionWriter): string[] {
  const set: string[] = [];
  const add: string[] = [];
  const del: string[] = [];
  for (const { path, value } of statement.sets) {
    if (value.kind === 'call' && (value.name === 'set_add' || value.name === 'set_delete')) {
      const [target, operand] = value.args;
      if (value.args.length !== 2 || target?.kind !== 'path' || target.segments.join('.') !== path.segments.join('.') || !operand || !isValue(operand)) {
        throw new ValidationException(`${value.name} must take the attribute being set and a set value: SET a = ${value.name}(a, <<...>>)`);
      }
      (value.name === 'set_add' ? add : del).push(`${w.path(path)} ${w.operand(operand)}`);
    } else set.push(`${w.path(path)} = ${w.operand(value)}`);
  }
  return [
    ...(set.length > 0 ? [`SET ${set.join(', ')}`] : []),
    ...(statement.removes.length > 0 ? [`REMOVE ${statement.removes.map((p) => w.path(p)).join(', ')}`] : []),
    ...(add.length > 0 ? [`ADD ${add.join(', ')}`] : []),
    ...(del.length > 0 ? [`DELETE ${del.join(', ')}`] : []),
  ];
}

function compileSelect(s: SelectStatement, w: ExpressionWriter, findTable: FindTable): CompiledStatement {
  const table = requireTable(findTable, s.target.table);
  const [pkName, skName] = targetKeys(table, s.target);
  const conjuncts = s.where ? flattenAnd(s.where) : [];
  const projection = s.projection ? { ProjectionExpression: s.projection.map((p) => w.path(p)).join(', ') } : {};
  const base = { TableName: table.name, ...(s.target.index !== undefined ? { IndexName: s.target.index } : {}) };
  if (s.orderBy && (s.orderBy.path.segments.length !== 1 || s.orderBy.path.segments[0] !== skName)) {
    throw new ValidationException('ORDER BY is only supported on the sort key of the table or index with a WHERE clause on the partition key');
  }

  const pkEq = conjuncts.findIndex((c) => equalityOn(c, pkName) !== undefined);
  if (pkEq >= 0) {
    const rest = conjuncts.filter((_, i) => i !== pkEq);
    const skAt = skName === undefined ? -1 : rest.findIndex((c) => isSortKeyCondition(c, skName));
    const filters = rest.filter((_, i) => i !== skAt);
    const keyNames = skName === undefined ? [pkName] : [pkName, skName];
    if (!filters.some((c) => namesAttribute(c, keyNames))) {
      const pkValue = equalityOn(conjuncts[pkEq]!, pkName)!;
      const skEq = skAt >= 0 ? equalityOn(rest[skAt]!, skName!) : undefined;
      if (s.target.index === undefined && filters.length === 0 && !s.orderBy && (skName === undefined || skEq !== undefined)) {
        const key = { [pkName]: w.bind(pkValue), ...(skEq !== undefined ? { [skName!]: w.bind(skEq) } : {}) };
        return { op: 'GetItem', request: { ...base, Key: key, ...projection, ...w.attributes() } };
      }
      const keyCondition = joinAnd([`${w.name(pkName)} = ${w.value(w.bind(pkValue))}`, ...(skAt >= 0 ? [w.condition(rest[skAt]!)] : [])]);
      return {
        op: 'Query',
        request: {
          ...base,
          KeyConditionExpression: keyCondition,
          ...(filters.length > 0 ? { FilterExpression: joinAnd(filters.map((c) => w.condition(c))) } : {}),
          ...(s.orderBy?.descending ? { ScanIndexForward: false } : {}),
          ...projection,
          ...w.attributes(),
        },
      };
    }
  }
  if (s.orderBy && pkEq < 0) throw new ValidationException('Must have WHERE clause in the statement when using ORDER BY clause.');
  // A Scan filtered to one partition key returns its items in sort-key order (the storage order
  // within a partition key), so ascending ORDER BY holds; descending needs a Query.
  if (s.orderBy?.descending) throw new ValidationException(ORDER_DESC_NEEDS_QUERY);
  return { op: 'Scan', request: { ...base, ...(s.where ? { FilterExpression: w.condition(s.where) } : {}), ...projection, ...w.attributes() } };
}

function compileExists(s: ExistsStatement, w: ExpressionWriter, findTable: FindTable): CompiledStatement {
  const table = requireTable(findTable, s.select.target.table);
  if (s.select.target.index !== undefined || s.select.projection || s.select.orderBy) throw new ValidationException('EXISTS must select * from a table by its primary key');
  const { key, rest } = fullKey(table, s.select.where, w);
  // A check of the key alone is refused: it would only test that the item exists.
  if (rest.length === 0) throw new PartiqlStatementError('EXISTS() must contain a single item read with additional condition');
  const exists = `attribute_exists(${w.name(table.def.keySchema.partitionKey.name)})`;
  return { op: 'ConditionCheck', request: { TableName: table.name, Key: key, ConditionExpression: joinAnd([exists, ...rest.map((c) => w.condition(c))]), ...w.attributes() } };
}

function requireTable(findTable: FindTable, name: string): Table {
  const table = findTable(name);
  if (!table) throw new ResourceNotFoundException('Requested resource not found');
  return table;
}

/** [partition key, sort key] of the table or of the named index. */
function targetKeys(table: Table, target: Target): [string, string | undefined] {
  if (target.index === undefined) return [table.def.keySchema.partitionKey.name, table.def.keySchema.sortKey?.name];
  const index = table.def.GlobalSecondaryIndexes.find((ix) => ix.IndexName === target.index) ?? table.def.LocalSecondaryIndexes.find((ix) => ix.IndexName === target.index);
  if (!index) throw new ValidationException(`The table does not have the specified index: ${target.index}`);
  return [index.keySchema.partitionKey.name, index.keySchema.sortKey?.name];
}

/** The item key from WHERE's equalities on every key attribute, and the conjuncts left over. */
function fullKey(table: Table, where: Condition | undefined, w: ExpressionWriter): { key: Record<string, WireAttributeValue>; rest: Condition[] } {
  let rest = where ? flattenAnd(where) : [];
  const key: Record<string, WireAttributeValue> = {};
  for (const name of table.keyNames) {
    const at = rest.findIndex((c) => equalityOn(c, name) !== undefined);
    if (at < 0) throw new ValidationException(WHERE_KEYS);
    key[name] = w.bind(equalityOn(rest[at]!, name)!);
    rest = rest.filter((_, i) => i !== at);
  }
  return { key, rest };
}

function flattenAnd(c: Condition): Condition[] {
  return c.kind === 'and' ? [...flattenAnd(c.left), ...flattenAnd(c.right)] : [c];
}

function joinAnd(parts: readonly string[]): string {
  return parts.join(' AND ');
}

function isTopLevel(o: Operand, name: string): boolean {
  return o.kind === 'path' && o.segments.length === 1 && o.segments[0] === name;
}

function isValue(o: Operand): o is Value {
  return o.kind === 'parameter' || o.kind === 'string' || o.kind === 'number' || o.kind === 'boolean' || o.kind === 'null' || o.kind === 'list' || o.kind === 'bag' || o.kind === 'tuple';
}

/** The value of a `name = value` (or `value = name`) conjunct. */
function equalityOn(c: Condition, name: string): Value | undefined {
  if (c.kind !== 'compare' || c.op !== '=') return undefined;
  if (isTopLevel(c.left, name) && isValue(c.right)) return c.right;
  if (isTopLevel(c.right, name) && isValue(c.left)) return c.left;
  return undefined;
}

/** A condition a KeyConditionExpression accepts on the sort key. */
function isSortKeyCondition(c: Condition, sk: string): boolean {
  if (c.kind === 'compare') return c.op !== '<>' && isTopLevel(c.left, sk) && isValue(c.right);
  if (c.kind === 'between') return isTopLevel(c.operand, sk) && isValue(c.low) && isValue(c.high);
  if (c.kind === 'function') return c.name === 'begins_with' && c.args.length === 2 && isTopLevel(c.args[0]!, sk) && isValue(c.args[1]!);
  return false;
}

/** Whether a condition names one of the attributes at the top level anywhere. */
function namesAttribute(c: Condition, names: readonly string[]): boolean {
  const inOperand = (o: Operand): boolean =>
    o.kind === 'path' ? names.includes(String(o.segments[0])) : o.kind === 'call' ? o.args.some(inOperand) : o.kind === 'arithmetic' ? inOperand(o.left) || inOperand(o.right) : false;
  switch (c.kind) {
    case 'and':
    case 'or':
      return namesAttribute(c.left, names) || namesAttribute(c.right, names);
    case 'not':
      return namesAttribute(c.operand, names);
    case 'compare':
      return inOperand(c.left) || inOperand(c.right);
    case 'between':
      return inOperand(c.operand) || inOperand(c.low) || inOperand(c.high);
    case 'in':
      return inOperand(c.operand) || c.list.some(inOperand);
    case 'is':
      return inOperand(c.operand);
    case 'function':
      return c.args.some(inOperand);
  }
}
