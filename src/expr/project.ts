/**
 * Projection: copies the parts of an item named by a set of non-overlapping document paths.
 * Missing paths are omitted; several indexes of one list come back compacted in ascending index
 * order; several sub-paths of one element merge into that element (§7.6).
 */
import type { AttributeValue, Item } from '../model/attribute-value.js';
import type { DocumentPath } from './ast.js';
import { setOwn } from '../model/set-own.js';

/** A trie of the projected paths. `whole` marks the end of a path: take the value entirely. */
export type ProjectionTree = {
  readonly whole: boolean;
  readonly names: ReadonlyMap<string, ProjectionTree>;
  /** Ascending. */
  readonly indexes: readonly (readonly [number, ProjectionTree])[];
};

type MutableTree = { whole: boolean; names: Map<string, MutableTree>; indexes: Map<number, MutableTree> };

export function buildProjectionTree(paths: readonly DocumentPath[]): ProjectionTree {
  const root: MutableTree = { whole: false, names: new Map(), indexes: new Map() };
  for (const path of paths) {
    let node = root;
    for (const step of path) {
      const children: Map<string | number, MutableTree> = typeof step === 'number' ? node.indexes : node.names;
      let child = children.get(step);
      if (child === undefined) {
        child = { whole: false, names: new Map(), indexes: new Map() };
        children.set(step, child);
      }
      node = child;
    }
    node.whole = true;
  }
  return freeze(root);
}

function freeze(node: MutableTree): ProjectionTree {
  const names = new Map<string, ProjectionTree>();
  for (const [k, v] of node.names) names.set(k, freeze(v));
  const indexes = [...node.indexes].sort((a, b) => a[0] - b[0]).map(([i, v]) => [i, freeze(v)] as const);
  return Object.freeze({ whole: node.whole, names, indexes: Object.freeze(indexes) });
}

function projectValue(value: AttributeValue, tree: ProjectionTree): AttributeValue | undefined {
  if (tree.whole) return value;
  if (tree.names.size > 0 && 'M' in value) {
    const out: Record<string, AttributeValue> = {};
    let any = false;
    for (const [name, child] of tree.names) {
      const v = Object.hasOwn(value.M, name) ? value.M[name] : undefined;
      const projected = v === undefined ? undefined : projectValue(v, child);
      if (projected !== undefined) {
        setOwn(out, name, projected);
        any = true;
      }
    }
    return any ? { M: out } : undefined;
  }
  if (tree.indexes.length > 0 && 'L' in value) {
    const out: AttributeValue[] = [];
    for (const [index, child] of tree.indexes) {
      const v = value.L[index];
      const projected = v === undefined ? undefined : projectValue(v, child);
      if (projected !== undefined) out.push(projected);
    }
    return out.length > 0 ? { L: out } : undefined;
  }
  return undefined;
}

export function projectTree(tree: ProjectionTree, item: Item): Item {
  const out: Record<string, AttributeValue> = {};
  for (const [name, child] of tree.names) {
    const v = Object.hasOwn(item, name) ? item[name] : undefined;
    const projected = v === undefined ? undefined : projectValue(v, child);
    if (projected !== undefined) setOwn(out, name, projected);
  }
  return out;
}
