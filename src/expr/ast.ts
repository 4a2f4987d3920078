/**
 * Expression syntax trees. Every node is frozen and tagged with `kind`; consumers dispatch with
 * tables typed `Record<Kind, ...>` so a new kind fails to compile until every stage handles it.
 *
 * Trees exist in two phases that share one shape:
 * - `Parsed`: straight from the parser, placeholders unresolved. Cached across requests.
 * - `Resolved`: `#names` replaced by attribute names, `:values` by validated AttributeValues.
 *   Built per request (values change between requests).
 */
import type { AttributeValue } from '../model/attribute-value.js';

/** One step of a parsed document path. */
export type PathSegment =
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'nameRef'; readonly ref: string }
  | { readonly kind: 'index'; readonly index: number };

/** A resolved document path: attribute/map-key names and list indexes. */
export type DocumentPath = readonly (string | number)[];

export type Phase = { readonly path: unknown; readonly value: unknown };
export type Parsed = { readonly path: readonly PathSegment[]; readonly value: string };
export type Resolved = { readonly path: DocumentPath; readonly value: AttributeValue };

export type Comparator = '=' | '<>' | '<' | '<=' | '>' | '>=';
/** Functions that produce a value (usable as operands). */
export type OperandFunction = 'size' | 'if_not_exists' | 'list_append';
/** Functions that produce a truth value (usable as conditions). */
export type ConditionFunction =
  | 'attribute_exists'
  | 'attribute_not_exists'
  | 'attribute_type'
  | 'begins_with'
  | 'contains';

export type PathOperand<P extends Phase> = { readonly kind: 'path'; readonly path: P['path'] };
/** In the parsed phase `value` is the `:placeholder`. */
export type ValueOperand<P extends Phase> = { readonly kind: 'value'; readonly value: P['value'] };
export type CallOperand<P extends Phase> = {
  readonly kind: 'call';
  readonly name: OperandFunction;
  readonly args: readonly Operand<P>[];
};
export type ArithmeticOperand<P extends Phase> = {
  readonly kind: 'arithmetic';
  readonly op: '+' | '-';
  readonly left: Operand<P>;
  readonly right: Operand<P>;
};
export type Operand<P extends Phase> = PathOperand<P> | ValueOperand<P> | CallOperand<P> | ArithmeticOperand<P>;
export type OperandKind = Operand<Parsed>['kind'];

export type ConditionNode<P extends Phase> =
  | { readonly kind: 'compare'; readonly op: Comparator; readonly left: Operand<P>; readonly right: Operand<P> }
  | { readonly kind: 'between'; readonly subject: Operand<P>; readonly low: Operand<P>; readonly high: Operand<P> }
  | { readonly kind: 'in'; readonly subject: Operand<P>; readonly list: readonly Operand<P>[] }
  | { readonly kind: 'function'; readonly name: ConditionFunction; readonly args: readonly Operand<P>[] }
  | { readonly kind: 'and'; readonly left: ConditionNode<P>; readonly right: ConditionNode<P> }
  | { readonly kind: 'or'; readonly left: ConditionNode<P>; readonly right: ConditionNode<P> }
  | { readonly kind: 'not'; readonly operand: ConditionNode<P> };
export type ConditionKind = ConditionNode<Parsed>['kind'];

export type UpdateAction<P extends Phase> =
  | { readonly kind: 'set'; readonly path: P['path']; readonly value: Operand<P> }
  | { readonly kind: 'remove'; readonly path: P['path'] }
  | { readonly kind: 'add'; readonly path: P['path']; readonly value: ValueOperand<P> }
  | { readonly kind: 'delete'; readonly path: P['path']; readonly value: ValueOperand<P> };
export type UpdateActionKind = UpdateAction<Parsed>['kind'];

/** Actions in the order written; each clause keyword appears at most once. */
export type UpdateNode<P extends Phase> = { readonly kind: 'update'; readonly actions: readonly UpdateAction<P>[] };
export type ProjectionNode<P extends Phase> = { readonly kind: 'projection'; readonly paths: readonly P['path'][] };

/** Deep-freezes a freshly built tree (parsed trees are shared through the cache). */
export function freezeTree<T>(node: T): T {
  if (node !== null && typeof node === 'object' && !Object.isFrozen(node) && !(node instanceof Uint8Array)) {
    for (const value of Object.values(node)) freezeTree(value);
    Object.freeze(node);
  }
  return node;
}
