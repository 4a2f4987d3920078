/**
 * KeyConditionExpression analysis (§6.3, §7.4): turns a resolved condition into the key range a
 * Query reads. Accepts `pk = :v` optionally ANDed with one sort-key condition, either side of a
 * comparison holding the value, with any parentheses.
 */
import { typeOf, type AttributeValue, type KeyValue } from '../model/attribute-value.js';
import { INVALID_PARAMETERS, invalid } from '../model/errors.js';
import type { PrimaryKeySchema } from '../model/key-schema.js';
import type { Comparator, ConditionNode, Operand, Resolved } from './ast.js';
import { expressionError } from './expression-error.js';

export type SortKeyCondition =
  | { readonly op: '=' | '<' | '<=' | '>' | '>='; readonly value: KeyValue }
  | { readonly op: 'BETWEEN'; readonly low: KeyValue; readonly high: KeyValue }
  | { readonly op: 'begins_with'; readonly prefix: KeyValue };

export type KeyRange = { readonly partitionValue: KeyValue; readonly sort?: SortKeyCondition };

/** One key condition: the attribute it constrains and the constraint. */
type Clause = { readonly name: string; readonly cond: SortKeyCondition };

const FLIPPED: Readonly<Record<Exclude<Comparator, '<>'>, '=' | '<' | '<=' | '>' | '>='>> = {
  '=': '=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

const TYPE_MISMATCH = `${INVALID_PARAMETERS}Condition parameter type does not match schema type`;

function conjuncts(node: ConditionNode<Resolved>, out: ConditionNode<Resolved>[]): ConditionNode<Resolved>[] {
  if (node.kind === 'and') {
    conjuncts(node.left, out);
    conjuncts(node.right, out);
  } else {
    out.push(node);
  }
  return out;
}

/** Rejects operators a key condition cannot have, anywhere in the tree. */
function checkOperators(node: ConditionNode<Resolved>): void {
  switch (node.kind) {
    case 'and':
      checkOperators(node.left);
      checkOperators(node.right);
      return;
    case 'or':
    case 'not':
      throw invalid(`Invalid operator used in KeyConditionExpression: ${node.kind.toUpperCase()}`);
    case 'in':
      throw invalid('Invalid operator used in KeyConditionExpression: IN');
    case 'compare':
      if (node.op === '<>') throw invalid('Invalid operator used in KeyConditionExpression: <>');
      return;
    case 'function':
      if (node.name !== 'begins_with') throw invalid(`Invalid operator used in KeyConditionExpression: ${node.name}`);
      return;
    case 'between':
      return;
  }
}

function attributeOf(operands: readonly Operand<Resolved>[]): string {
  let name: string | undefined;
  for (const op of operands) {
    if (op.kind === 'call' || op.kind === 'arithmetic') throw invalid('KeyConditionExpressions cannot contain nested operations');
    if (op.kind !== 'path') continue;
    if (name !== undefined) throw invalid('Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition');
    if (op.path.length > 1) {
      throw expressionError('KeyConditionExpression', 'KeyConditionExpressions cannot have conditions on nested attributes');
    }
    name = op.path[0] as string;
  }
  if (name === undefined) throw invalid('Invalid condition in KeyConditionExpression: No key attribute specified');
  return name;
}

function keyValue(op: Operand<Resolved> | undefined): KeyValue {
  const value = (op as { value: AttributeValue }).value;
  const type = typeOf(value);
  if (type !== 'S' && type !== 'N' && type !== 'B') throw invalid(TYPE_MISMATCH);
  return value as KeyValue;
}

function clauseOf(node: ConditionNode<Resolved>): Clause {
  switch (node.kind) {
    case 'compare': {
      const name = attributeOf([node.left, node.right]);
      const op = node.op as Exclude<Comparator, '<>'>;
      return node.left.kind === 'path'
        ? { name, cond: { op, value: keyValue(node.right) } }
        : { name, cond: { op: FLIPPED[op], value: keyValue(node.left) } };
    }
    case 'between': {
      const name = attributeOf([node.subject, node.low, node.high]);
      if (node.subject.kind !== 'path') throw invalid('Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition');
      return { name, cond: { op: 'BETWEEN', low: keyValue(node.low), high: keyValue(node.high) } };
    }
    case 'function': {
      const name = attributeOf(node.args);
      if (node.args[0]?.kind !== 'path') throw invalid('Query key condition not supported');
      return { name, cond: { op: 'begins_with', prefix: keyValue(node.args[1]) } };
    }
    default:
      throw invalid(`Invalid operator used in KeyConditionExpression: ${node.kind.toUpperCase()}`);
  }
}

function valuesOf(cond: SortKeyCondition): readonly KeyValue[] {
  return cond.op === 'BETWEEN' ? [cond.low, cond.high] : cond.op === 'begins_with' ? [cond.prefix] : [cond.value];
}

export function analyzeKeyConditionNode(node: ConditionNode<Resolved>, schema: PrimaryKeySchema): KeyRange {
  checkOperators(node);
  const clauses = conjuncts(node, []).map(clauseOf);
  const seen = new Set<string>();
  for (const c of clauses) {
    if (seen.has(c.name)) throw expressionError('KeyConditionExpression', 'KeyConditionExpressions must only contain one condition per key');
    seen.add(c.name);
  }
  const { partitionKey, sortKey } = schema;
  // Captured for three conditions on a two-attribute key. Two conditions on a partition-key-only
  // table keep the older `missed key schema element` text (KeyConditions' capture; unverified for
  // expressions), so the count is only checked past two.
  const keyCount = sortKey === undefined ? 1 : 2;
  if (clauses.length > 2) {
    throw invalid(`The number of query conditions (${clauses.length}) exceeds the number of key attributes defined in the schema (${keyCount})`);
  }
  const hasPartitionKey = clauses.some((c) => c.name === partitionKey.name);
  for (const c of clauses) {
    if (c.name !== partitionKey.name && c.name !== sortKey?.name) {
      // A condition on a non-key attribute: DynamoDB names the partition key when it is missing,
      // else the key element the condition should have been on.
      throw invalid(`Query condition missed key schema element: ${hasPartitionKey ? (sortKey?.name ?? c.name) : partitionKey.name}`);
    }
  }
  const pk = clauses.find((c) => c.name === partitionKey.name);
  if (pk === undefined) throw invalid(`Query condition missed key schema element: ${partitionKey.name}`);
  if (pk.cond.op !== '=') throw invalid('Query key condition not supported');
  if (typeOf(pk.cond.value) !== partitionKey.type) throw invalid(TYPE_MISMATCH);
  const sk = sortKey === undefined ? undefined : clauses.find((c) => c.name === sortKey.name);
  if (sk === undefined || sortKey === undefined) return { partitionValue: pk.cond.value };
  for (const v of valuesOf(sk.cond)) if (typeOf(v) !== sortKey.type) throw invalid(TYPE_MISMATCH);
  if (sk.cond.op === 'begins_with' && sortKey.type === 'N') throw invalid('Query key condition not supported');
  return { partitionValue: pk.cond.value, sort: sk.cond };
}
