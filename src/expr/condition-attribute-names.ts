/** Top-level attribute names a resolved condition reads. */
import type { ConditionNode, Operand, Resolved } from './ast.js';

function fromOperand(op: Operand<Resolved>, out: Set<string>): void {
  switch (op.kind) {
    case 'path':
      out.add(op.path[0] as string);
      return;
    case 'value':
      return;
    case 'call':
      for (const arg of op.args) fromOperand(arg, out);
      return;
    case 'arithmetic':
      fromOperand(op.left, out);
      fromOperand(op.right, out);
      return;
  }
}

function fromCondition(node: ConditionNode<Resolved>, out: Set<string>): void {
  switch (node.kind) {
    case 'compare':
      fromOperand(node.left, out);
      fromOperand(node.right, out);
      return;
    case 'between':
      for (const op of [node.subject, node.low, node.high]) fromOperand(op, out);
      return;
    case 'in':
      fromOperand(node.subject, out);
      for (const op of node.list) fromOperand(op, out);
      return;
    case 'function':
      for (const arg of node.args) fromOperand(arg, out);
      return;
    case 'and':
    case 'or':
      fromCondition(node.left, out);
      fromCondition(node.right, out);
      return;
    case 'not':
      fromCondition(node.operand, out);
      return;
  }
}

export function conditionAttributeNames(node: ConditionNode<Resolved>): ReadonlySet<string> {
  const out = new Set<string>();
  fromCondition(node, out);
  return out;
}
