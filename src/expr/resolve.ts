/**
 * Resolution: replaces `#name` placeholders by attribute names and `:value` placeholders by
 * validated values, recording which placeholders were used (a request must use every one it
 * defines). Pure: the parsed tree is shared through the cache and never modified.
 */
import type { AttributeValue } from '../model/attribute-value.js';
import type {
  ConditionKind,
  ConditionNode,
  DocumentPath,
  Operand,
  OperandKind,
  Parsed,
  PathSegment,
  ProjectionNode,
  Resolved,
  UpdateAction,
  UpdateActionKind,
  UpdateNode,
  ValueOperand,
} from './ast.js';
import { expressionError, type ExpressionKind } from './expression-error.js';

export type ResolveContext = {
  readonly kind: ExpressionKind;
  readonly names: Readonly<Record<string, string>> | undefined;
  readonly values: ReadonlyMap<string, AttributeValue>;
  readonly usedNames: Set<string>;
  readonly usedValues: Set<string>;
};

type Of<U, K> = Extract<U, { kind: K }>;

export function resolvePath(path: readonly PathSegment[], ctx: ResolveContext): DocumentPath {
  const out: (string | number)[] = new Array(path.length);
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    if (segment.kind === 'name') out[i] = segment.name;
    else if (segment.kind === 'index') out[i] = segment.index;
    else {
      const name = ctx.names !== undefined && Object.hasOwn(ctx.names, segment.ref) ? ctx.names[segment.ref] : undefined;
      if (name === undefined) {
        throw expressionError(
          ctx.kind,
          `An expression attribute name used in the document path is not defined; attribute name: ${segment.ref}`);
      }
      ctx.usedNames.add(segment.ref);
      out[i] = name;
    }
  }
  return out;
}

function resolveValue(node: ValueOperand<Parsed>, ctx: ResolveContext): ValueOperand<Resolved> {
  const value = ctx.values.get(node.value);
  if (value === undefined) {
    throw expressionError(ctx.kind, `An expression attribute value used in expression is not defined; attribute value: ${node.value}`);
  }
  ctx.usedValues.add(node.value);
  return { kind: 'value', value };
}

const OPERANDS: { [K in OperandKind]: (node: Of<Operand<Parsed>, K>, ctx: ResolveContext) => Operand<Resolved> } = {
  path: (node, ctx) => ({ kind: 'path', path: resolvePath(node.path, ctx) }),
  value: resolveValue,
  call: (node, ctx) => ({ kind: 'call', name: node.name, args: node.args.map((a) => resolveOperand(a, ctx)) }),
  arithmetic: (node, ctx) => ({
    kind: 'arithmetic',
    op: node.op,
    left: resolveOperand(node.left, ctx),
    right: resolveOperand(node.right, ctx),
  }),
};

export function resolveOperand(node: Operand<Parsed>, ctx: ResolveContext): Operand<Resolved> {
  return (OPERANDS[node.kind] as (n: Operand<Parsed>, c: ResolveContext) => Operand<Resolved>)(node, ctx);
}

const CONDITIONS: {
  [K in ConditionKind]: (node: Of<ConditionNode<Parsed>, K>, ctx: ResolveContext) => ConditionNode<Resolved>;
} = {
  compare: (node, ctx) => ({
    kind: 'compare',
    op: node.op,
    left: resolveOperand(node.left, ctx),
    right: resolveOperand(node.right, ctx),
  }),
  between: (node, ctx) => ({
    kind: 'between',
    subject: resolveOperand(node.subject, ctx),
    low: resolveOperand(node.low, ctx),
    high: resolveOperand(node.high, ctx),
  }),
  in: (node, ctx) => ({
    kind: 'in',
    subject: resolveOperand(node.subject, ctx),
    list: node.list.map((o) => resolveOperand(o, ctx)),
  }),
  function: (node, ctx) => ({ kind: 'function', name: node.name, args: node.args.map((a) => resolveOperand(a, ctx)) }),
  and: (node, ctx) => ({ kind: 'and', left: resolveCondition(node.left, ctx), right: resolveCondition(node.right, ctx) }),
  or: (node, ctx) => ({ kind: 'or', left: resolveCondition(node.left, ctx), right: resolveCondition(node.right, ctx) }),
  not: (node, ctx) => ({ kind: 'not', operand: resolveCondition(node.operand, ctx) }),
};

export function resolveCondition(node: ConditionNode<Parsed>, ctx: ResolveContext): ConditionNode<Resolved> {
  return (CONDITIONS[node.kind] as (n: ConditionNode<Parsed>, c: ResolveContext) => ConditionNode<Resolved>)(node, ctx);
}

const ACTIONS: {
  [K in UpdateActionKind]: (node: Of<UpdateAction<Parsed>, K>, ctx: ResolveContext) => UpdateAction<Resolved>;
} = {
  set: (node, ctx) => ({ kind: 'set', path: resolvePath(node.path, ctx), value: resolveOperand(node.value, ctx) }),
  remove: (node, ctx) => ({ kind: 'remove', path: resolvePath(node.path, ctx) }),
  add: (node, ctx) => ({ kind: 'add', path: resolvePath(node.path, ctx), value: resolveValue(node.value, ctx) }),
  delete: (node, ctx) => ({ kind: 'delete', path: resolvePath(node.path, ctx), value: resolveValue(node.value, ctx) }),
};

export function resolveUpdate(node: UpdateNode<Parsed>, ctx: ResolveContext): UpdateNode<Resolved> {
  return {
    kind: 'update',
    actions: node.actions.map((a) =>
      (ACTIONS[a.kind] as (n: UpdateAction<Parsed>, c: ResolveContext) => UpdateAction<Resolved>)(a, ctx),
    ),
  };
}

export function resolveProjection(node: ProjectionNode<Parsed>, ctx: ResolveContext): ProjectionNode<Resolved> {
  return { kind: 'projection', paths: node.paths.map((p) => resolvePath(p, ctx)) };
}
