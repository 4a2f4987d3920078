/**
 * Applying a resolved UpdateExpression to an item (§7.5). Pure: the input item is never
 * modified; containers along changed paths are copied on first write.
 *
 * Order: every SET value is computed from the item as it was before the update; then SET actions
 * run (list-index writes in ascending index order, an index past the end appends), REMOVE actions
 * (list elements in descending index order, so `REMOVE l[0], l[1]` removes both original
 * elements), then ADD, then DELETE. Paths never overlap (checked at compile time), so the order
 * across different paths does not change the outcome.
 */
import type { AttributeValue, Item } from '../model/attribute-value.js';
import { INVALID_PARAMETERS, invalid } from '../model/errors.js';
import { addNumbers } from '../model/number.js';
import { SET_ORDER, sortMembers, uniqueSorted } from '../model/set-order.js';
import { bytesEqual } from '../model/values-equal.js';
import type { DocumentPath, Resolved, UpdateAction, UpdateNode } from './ast.js';
import { getPath } from './document-path.js';
import { INCORRECT_OPERAND_TYPE, evaluateOperand } from './evaluate-operand.js';
import { buildProjectionTree, projectTree } from './project.js';

export const INVALID_UPDATE_PATH = 'The document path provided in the update expression is invalid for update';

export type UpdateResult = { item: Item; updatedOld: Item; updatedNew: Item };

type MutableMap = Record<string, AttributeValue>;

/** Copy-on-write over the item: containers created here are owned and may be mutated. */
class Draft {
  readonly root: MutableMap;
  private readonly owned = new WeakSet<object>();

  constructor(item: Item | undefined) {
    this.root = { ...item };
  }

  private own(value: AttributeValue): AttributeValue {
    if (this.owned.has(value)) return value;
    let copy: AttributeValue;
    if ('M' in value) copy = { M: { ...value.M } };
    else if ('L' in value) copy = { L: [...value.L] };
    else return value;
    this.owned.add(copy);
    return copy;
  }

  /** The owned container at `path`, or undefined when a step is missing or not a container. */
  private container(path: DocumentPath, length: number): AttributeValue | undefined {
    let parent: AttributeValue | undefined;
    for (let i = 0; i < length; i++) {
      const step = path[i]!;
      let current: AttributeValue | undefined;
      if (parent === undefined) current = Object.hasOwn(this.root, step as string) ? this.root[step as string] : undefined;
      else if (typeof step === 'number') current = 'L' in parent ? parent.L[step] : undefined;
      else current = 'M' in parent && Object.hasOwn(parent.M, step) ? parent.M[step] : undefined;
      if (current === undefined) return undefined;
      const mine = this.own(current);
      if (parent === undefined) this.root[step as string] = mine;
      else if (typeof step === 'number') (parent as { L: AttributeValue[] }).L[step] = mine;
      else (parent as { M: MutableMap }).M[step] = mine;
      parent = mine;
    }
    return parent;
  }

  /** Returns the path written: a list index past the end appends, so it names where the value went. */
  set(path: DocumentPath, value: AttributeValue): DocumentPath {
    if (path.length === 1) {
      this.root[path[0] as string] = value;
      return path;
    }
    const parent = this.container(path, path.length - 1);
    const last = path[path.length - 1]!;
    if (parent !== undefined && typeof last === 'number' && 'L' in parent) {
      const list = (parent as { L: AttributeValue[] }).L;
      if (last < list.length) list[last] = value;
      else return [...path.slice(0, -1), list.push(value) - 1];
    } else if (parent !== undefined && typeof last === 'string' && 'M' in parent) {
      (parent as { M: MutableMap }).M[last] = value;
    } else {
      throw invalid(INVALID_UPDATE_PATH);
    }
    return path;
  }

  remove(path: DocumentPath): void {
    if (path.length === 1) {
      delete this.root[path[0] as string];
      return;
    }
    if (getPath(this.root, path.slice(0, -1)) === undefined) return;
    const parent = this.container(path, path.length - 1)!;
    const last = path[path.length - 1]!;
    if (typeof last === 'number' && 'L' in parent) {
      const list = (parent as { L: AttributeValue[] }).L;
      if (last < list.length) list.splice(last, 1);
    } else if (typeof last === 'string' && 'M' in parent) {
      delete (parent as { M: MutableMap }).M[last];
    } else {
      throw invalid(INVALID_UPDATE_PATH);
    }
  }
}

/** Orders two paths by list index at their first difference; 0 when that step is not an index. */
function indexOrder(a: DocumentPath, b: DocumentPath): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (a[i] === b[i]) continue;
    const x = a[i];
    const y = b[i];
    return typeof x === 'number' && typeof y === 'number' ? x - y : 0;
  }
  return 0;
}

/** ADD: a number sum, or a set union in DynamoDB's member order (model/set-order.ts). */
function union(existing: AttributeValue, added: AttributeValue): AttributeValue | undefined {
  if ('SS' in existing && 'SS' in added) return { SS: uniqueSorted(existing.SS.concat(added.SS), SET_ORDER.SS) };
  if ('NS' in existing && 'NS' in added) return { NS: uniqueSorted(existing.NS.concat(added.NS), SET_ORDER.NS) };
  if ('BS' in existing && 'BS' in added) return { BS: uniqueSorted(existing.BS.concat(added.BS), SET_ORDER.BS) };
  if ('N' in existing && 'N' in added) return { N: addNumbers(existing.N, added.N) };
  return undefined;
}

/**
 * DELETE: the members left, in DynamoDB's member order (a set stored before that order was kept
 * is sorted here); null when none are left.
 */
function difference(existing: AttributeValue, removed: AttributeValue): AttributeValue | null | undefined {
  let out: AttributeValue;
  if ('SS' in existing && 'SS' in removed) out = { SS: sortMembers(existing.SS.filter((s) => !removed.SS.includes(s)), SET_ORDER.SS) };
  else if ('NS' in existing && 'NS' in removed)
    out = { NS: sortMembers(existing.NS.filter((n) => !removed.NS.includes(n)), SET_ORDER.NS) };
  else if ('BS' in existing && 'BS' in removed)
    out = { BS: sortMembers(existing.BS.filter((b) => !removed.BS.some((m) => bytesEqual(m, b))), SET_ORDER.BS) };
  else return undefined;
  const size = 'SS' in out ? out.SS.length : 'NS' in out ? out.NS.length : (out as { BS: unknown[] }).BS.length;
  return size === 0 ? null : out;
}

export function applyUpdatePlan(plan: UpdateNode<Resolved>, item: Item | undefined, keyNames: readonly string[]): UpdateResult {
  for (const action of plan.actions) {
    const head = action.path[0] as string;
    if (keyNames.includes(head)) {
      throw invalid(`${INVALID_PARAMETERS}Cannot update attribute ${head}. This attribute is part of the key`);
    }
  }
  const sets: { path: DocumentPath; value: AttributeValue }[] = [];
  const removes: DocumentPath[] = [];
  const adds: Extract<UpdateAction<Resolved>, { kind: 'add' }>[] = [];
  const deletes: Extract<UpdateAction<Resolved>, { kind: 'delete' }>[] = [];
  for (const action of plan.actions) {
    switch (action.kind) {
      case 'set':
        sets.push({ path: action.path, value: evaluateOperand(action.value, item, 'update')! });
        break;
      case 'remove':
        removes.push(action.path);
        break;
      case 'add':
        adds.push(action);
        break;
      case 'delete':
        deletes.push(action);
        break;
    }
  }
  const draft = new Draft(item);
  sets.sort((a, b) => indexOrder(a.path, b.path));
  // UPDATED_NEW projects where each value landed, which for an appending index is not its path.
  const written: DocumentPath[] = [];
  for (const { path, value } of sets) written.push(draft.set(path, value));
  removes.sort((a, b) => indexOrder(b, a));
  for (const path of removes) draft.remove(path);
  for (const { path, value } of adds) {
    const existing = getPath(draft.root, path);
    const next = existing === undefined ? value.value : union(existing, value.value);
    if (next === undefined) throw invalid(INCORRECT_OPERAND_TYPE);
    written.push(draft.set(path, next));
  }
  for (const { path, value } of deletes) {
    const existing = getPath(draft.root, path);
    if (existing === undefined) continue;
    const next = difference(existing, value.value);
    if (next === undefined) throw invalid(INCORRECT_OPERAND_TYPE);
    if (next === null) draft.remove(path);
    else written.push(draft.set(path, next));
  }
  const touched = plan.actions.map((a) => a.path);
  return {
    item: draft.root,
    updatedOld: item === undefined ? {} : projectTree(buildProjectionTree(touched), item),
    updatedNew: projectTree(buildProjectionTree(written), draft.root),
  };
}
