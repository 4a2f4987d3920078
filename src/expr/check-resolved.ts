/**
 * Static checks that need resolved names and values, run once per request after resolution, in
 * DynamoDB's reporting order: distinct operands, then operand types and bounds (conditions);
 * overlapping paths, conflicting paths, ADD/DELETE operand types, then function operand types
 * (updates); overlapping and conflicting paths (projections).
 */
import { typeOf, type AttributeType, type AttributeValue } from '../model/attribute-value.js';
import { encodeBase64 } from '../model/binary.js';
import { compareValues } from '../model/compare-values.js';
import type { ConditionKind, ConditionNode, DocumentPath, Operand, ProjectionNode, Resolved, UpdateNode } from './ast.js';
import { expressionError, pathText, type ExpressionKind } from './expression-error.js';

/** `keyOrdering`: a key condition, whose ordering comparisons take only key-typed (S, N, B) literals. */
type Findings = { distinct?: string; types?: string; readonly keyOrdering?: boolean };

const KEY_TYPES: ReadonlySet<AttributeType> = new Set(['S', 'N', 'B']);
const ORDERING: ReadonlySet<string> = new Set(['<', '<=', '>', '>=']);

/**
 * In a key condition, a literal no key could ever be compared with (a BOOL in `sk < :v`) is an
 * operand type error, reported before the schema is consulted; a key type that is merely not the
 * attribute's (a string against a number sort key), or any literal in `=`, is left to the schema
 * check. Captured for BOOL; the other non-key types are assumed to follow it.
 */
function checkKeyOrdering(op: string, operands: readonly Operand<Resolved>[], found: Findings): void {
  if (!found.keyOrdering || found.types !== undefined) return;
  for (const operand of operands) {
    if (operand.kind === 'value' && !KEY_TYPES.has(typeOf(operand.value))) {
      found.types = operandTypeError(op, typeOf(operand.value));
      return;
    }
  }
}
type Of<U, K> = Extract<U, { kind: K }>;

const ATTRIBUTE_TYPE_NAMES: ReadonlySet<string> = new Set(['S', 'SS', 'N', 'NS', 'B', 'BS', 'BOOL', 'NULL', 'L', 'M']);

/** `AttributeValue: {N:5}` as DynamoDB prints a literal in messages. */
export function valueText(value: AttributeValue): string {
  const type = typeOf(value);
  const raw = (value as Record<string, unknown>)[type];
  const shown = raw instanceof Uint8Array ? encodeBase64(raw) : String(raw);
  return `AttributeValue: {${type}:${shown}}`;
}

/** The static type of an operand when knowable without an item: literals and size(). */
function staticType(op: Operand<Resolved>): AttributeType | undefined {
  if (op.kind === 'value') return typeOf(op.value);
  if (op.kind === 'call' && op.name === 'size') return 'N';
  return undefined;
}

function samePath(a: DocumentPath, b: DocumentPath): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}

function checkDistinct(op: string, args: readonly Operand<Resolved>[], found: Findings): void {
  const [a, b] = args;
  if (found.distinct !== undefined || args.length !== 2 || a?.kind !== 'path' || b?.kind !== 'path') return;
  if (samePath(a.path, b.path)) {
    found.distinct = `The first operand must be distinct from the remaining operands for this operator or function; operator: ${op}, first operand: ${pathText(a.path)}`;
  }
}

function operandTypeError(name: string, type: string): string {
  return `Incorrect operand type for operator or function; operator or function: ${name}, operand type: ${type}`;
}

function checkOperand(op: Operand<Resolved>, found: Findings): void {
  if (op.kind === 'call') {
    if (op.name === 'size' && found.types === undefined) {
      const t = op.args[0] === undefined ? undefined : staticType(op.args[0]);
      if (t === 'N' || t === 'BOOL' || t === 'NULL') found.types = operandTypeError('size', t);
    }
    for (const arg of op.args) checkOperand(arg, found);
  }
}

const CONDITION_CHECKS: { [K in ConditionKind]: (node: Of<ConditionNode<Resolved>, K>, found: Findings) => void } = {
  compare: (node, found) => {
    checkDistinct(node.op, [node.left, node.right], found);
    checkOperand(node.left, found);
    checkOperand(node.right, found);
    if (ORDERING.has(node.op)) checkKeyOrdering(node.op, [node.left, node.right], found);
  },
  between: (node, found) => {
    for (const op of [node.subject, node.low, node.high]) checkOperand(op, found);
    checkKeyOrdering('BETWEEN', [node.low, node.high], found);
    if (found.types !== undefined || node.low.kind !== 'value' || node.high.kind !== 'value') return;
    const low = node.low.value;
    const high = node.high.value;
    const bounds = `lower bound operand: ${valueText(low)}, upper bound operand: ${valueText(high)}`;
    if (typeOf(low) !== typeOf(high)) {
      found.types = `The BETWEEN operator requires same data type for lower and upper bounds; ${bounds}`;
    } else if ((compareValues(low, high) ?? 0) > 0) {
      found.types = `The BETWEEN operator requires upper bound to be greater than or equal to lower bound; ${bounds}`;
    }
  },
  in: (node, found) => {
    checkOperand(node.subject, found);
    for (const op of node.list) checkOperand(op, found);
  },
  function: (node, found) => {
    checkDistinct(node.name, node.args, found);
    for (const arg of node.args) checkOperand(arg, found);
    if (found.types !== undefined) return;
    if (node.name === 'begins_with') {
      for (const arg of node.args) {
        const t = staticType(arg);
        if (t !== undefined && t !== 'S' && t !== 'B') {
          found.types = operandTypeError('begins_with', t);
          return;
        }
      }
    } else if (node.name === 'attribute_type') {
      const arg = node.args[1];
      if (arg === undefined) return;
      const t = staticType(arg);
      if (t !== 'S') {
        found.types = operandTypeError('attribute_type', t ?? '{NS,SS,L,BS,N,M,B,BOOL,NULL,S}');
      } else if (arg.kind === 'value' && !ATTRIBUTE_TYPE_NAMES.has((arg.value as { S: string }).S)) {
        found.types = `Invalid attribute type name found; type: ${(arg.value as { S: string }).S}, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}`;
      }
    }
  },
  and: (node, found) => {
    walkCondition(node.left, found);
    walkCondition(node.right, found);
  },
  or: (node, found) => {
    walkCondition(node.left, found);
    walkCondition(node.right, found);
  },
  not: (node, found) => walkCondition(node.operand, found),
};

function walkCondition(node: ConditionNode<Resolved>, found: Findings): void {
  (CONDITION_CHECKS[node.kind] as (n: ConditionNode<Resolved>, f: Findings) => void)(node, found);
}

export function checkCondition(kind: ExpressionKind, node: ConditionNode<Resolved>): void {
  const found: Findings = { keyOrdering: kind === 'KeyConditionExpression' };
  walkCondition(node, found);
  if (found.distinct !== undefined) throw expressionError(kind, found.distinct);
  if (found.types !== undefined) throw expressionError(kind, found.types);
}

/**
 * Overlap: one path is a prefix of (or equal to) another. Conflict: at the first position where
 * both have a step, one is a map key and the other a list index.
 */
function pathClash(paths: readonly DocumentPath[]): { overlap?: string; conflict?: string } {
  const result: { overlap?: string; conflict?: string } = {};
  for (let j = 1; j < paths.length; j++) {
    for (let i = 0; i < j; i++) {
      const one = paths[i]!;
      const two = paths[j]!;
      let verdict: 'overlap' | 'conflict' | undefined = 'overlap';
      for (let k = 0; k < one.length && k < two.length; k++) {
        if (typeof one[k] !== typeof two[k]) {
          verdict = 'conflict';
          break;
        }
        if (one[k] !== two[k]) {
          verdict = undefined;
          break;
        }
      }
      if (verdict !== undefined && result[verdict] === undefined) {
        const word = verdict === 'overlap' ? 'overlap' : 'conflict';
        result[verdict] = `Two document paths ${word} with each other; must remove or rewrite one of these paths; path one: ${pathText(one)}, path two: ${pathText(two)}`;
      }
    }
  }
  return result;
}

const UPDATE_TYPE_NAMES: Partial<Record<AttributeType, string>> = {
  S: 'STRING',
  N: 'NUMBER',
  B: 'BINARY',
  NULL: 'NULL',
  BOOL: 'BOOLEAN',
  L: 'LIST',
  M: 'MAP',
};

function checkUpdateOperand(op: Operand<Resolved>, found: Findings): void {
  if (found.types !== undefined) return;
  if (op.kind === 'arithmetic' || (op.kind === 'call' && op.name === 'list_append')) {
    const name = op.kind === 'arithmetic' ? op.op : op.name;
    const want: AttributeType = op.kind === 'arithmetic' ? 'N' : 'L';
    const args = op.kind === 'arithmetic' ? [op.left, op.right] : op.args;
    for (const arg of args) {
      if (arg.kind === 'value' && typeOf(arg.value) !== want) {
        found.types = operandTypeError(name, typeOf(arg.value));
        return;
      }
    }
  }
  if (op.kind === 'arithmetic') {
    checkUpdateOperand(op.left, found);
    checkUpdateOperand(op.right, found);
  } else if (op.kind === 'call') {
    for (const arg of op.args) checkUpdateOperand(arg, found);
  }
}

export function checkUpdate(node: UpdateNode<Resolved>): void {
  const clash = pathClash(node.actions.map((a) => a.path));
  let operand: string | undefined;
  const found: Findings = {};
  for (const action of node.actions) {
    if (action.kind === 'add' || action.kind === 'delete') {
      const type = typeOf(action.value.value);
      const ok = type === 'SS' || type === 'NS' || type === 'BS' || (action.kind === 'add' && type === 'N');
      if (!ok && operand === undefined) {
        operand = `Incorrect operand type for operator or function; operator: ${action.kind.toUpperCase()}, operand type: ${UPDATE_TYPE_NAMES[type] ?? type}`;
      }
    } else if (action.kind === 'set') {
      checkUpdateOperand(action.value, found);
    }
  }
  const message = clash.overlap ?? clash.conflict ?? operand ?? found.types;
  if (message !== undefined) throw expressionError('UpdateExpression', message);
}

export function checkProjection(node: ProjectionNode<Resolved>): void {
  const clash = pathClash(node.paths);
  const message = clash.overlap ?? clash.conflict;
  if (message !== undefined) throw expressionError('ProjectionExpression', message);
}
