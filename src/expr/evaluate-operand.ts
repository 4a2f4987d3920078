/**
 * Operand evaluation, shared by conditions and updates. The modes differ only in how a missing
 * path or a wrongly typed operand is treated:
 * - 'condition': a missing path yields undefined (every comparison with it is then false, §7.3).
 * - 'update': a missing path in a value position throws, as do operands of the wrong type (§7.5).
 */
import type { AttributeValue, Item } from '../model/attribute-value.js';
import { invalid } from '../model/errors.js';
import { addNumbers, subtractNumbers } from '../model/number.js';
import type { Operand, OperandKind, Resolved } from './ast.js';
import { getPath } from './document-path.js';

export type OperandMode = 'condition' | 'update';

export const MISSING_ATTRIBUTE = 'The provided expression refers to an attribute that does not exist in the item';
export const INCORRECT_OPERAND_TYPE = 'An operand in the update expression has an incorrect data type';

type Of<K> = Extract<Operand<Resolved>, { kind: K }>;
type Evaluator<K extends OperandKind> = (node: Of<K>, item: Item | undefined, mode: OperandMode) => AttributeValue | undefined;

/** Element count or length as DynamoDB's size() defines it; undefined for N, BOOL and NULL. */
export function sizeOf(value: AttributeValue): number | undefined {
  if ('S' in value) return value.S.length; // UTF-16 code units, like Java's String.length()
  if ('B' in value) return value.B.length;
  if ('L' in value) return value.L.length;
  if ('M' in value) return Object.keys(value.M).length;
  if ('SS' in value) return value.SS.length;
  if ('NS' in value) return value.NS.length;
  if ('BS' in value) return value.BS.length;
  return undefined;
}

const EVALUATORS: { [K in OperandKind]: Evaluator<K> } = {
  path: (node, item, mode) => {
    const value = getPath(item, node.path);
    if (value === undefined && mode === 'update') throw invalid(MISSING_ATTRIBUTE);
    return value;
  },
  value: (node) => node.value,
  call: (node, item, mode) => {
    switch (node.name) {
      case 'size': {
        const arg = evaluateOperand(node.args[0]!, item, mode);
        const n = arg === undefined ? undefined : sizeOf(arg);
        return n === undefined ? undefined : { N: String(n) };
      }
      case 'if_not_exists': {
        const first = node.args[0]!;
        const existing = first.kind === 'path' ? getPath(item, first.path) : evaluateOperand(first, item, mode);
        return existing ?? evaluateOperand(node.args[1]!, item, mode);
      }
      case 'list_append': {
        const a = evaluateOperand(node.args[0]!, item, mode);
        const b = evaluateOperand(node.args[1]!, item, mode);
        if (a === undefined || b === undefined || !('L' in a) || !('L' in b)) {
          if (mode === 'update') throw invalid(INCORRECT_OPERAND_TYPE);
          return undefined;
        }
        return { L: [...a.L, ...b.L] };
      }
    }
  },
  arithmetic: (node, item, mode) => {
    const a = evaluateOperand(node.left, item, mode);
    const b = evaluateOperand(node.right, item, mode);
    if (a === undefined || b === undefined || !('N' in a) || !('N' in b)) {
      if (mode === 'update') throw invalid(INCORRECT_OPERAND_TYPE);
      return undefined;
    }
    return { N: node.op === '+' ? addNumbers(a.N, b.N) : subtractNumbers(a.N, b.N) };
  },
};

export function evaluateOperand(node: Operand<Resolved>, item: Item | undefined, mode: OperandMode): AttributeValue | undefined {
  return (EVALUATORS[node.kind] as Evaluator<OperandKind>)(node as never, item, mode);
}
