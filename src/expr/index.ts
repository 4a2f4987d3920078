/**
 * The expression engine's public face: the only module other layers import from src/expr.
 *
 * compileExpressions (parse, cached; resolve; validate) -> evaluateCondition / applyUpdate /
 * projectItem / analyzeKeyCondition. Compiled forms are opaque to callers.
 */
import type { Item } from '../model/attribute-value.js';
import type { PrimaryKeySchema } from '../model/key-schema.js';
import { applyUpdatePlan, type UpdateResult } from './apply-update.js';
import type { Condition, Projection, UpdatePlan } from './compile-expressions.js';
import { evaluateConditionNode } from './evaluate-condition.js';
import { analyzeKeyConditionNode, type KeyRange } from './key-condition.js';
import { projectTree } from './project.js';

export { compileExpressions } from './compile-expressions.js';
export type {
  CompiledExpressions,
  Condition,
  ExpressionRequest,
  Projection,
  UpdatePlan,
  ValueExpressionKind,
} from './compile-expressions.js';
export type { KeyRange, SortKeyCondition } from './key-condition.js';
export type { UpdateResult } from './apply-update.js';
export type { ExpressionKind } from './expression-error.js';
export { conditionAttributeNames } from './condition-attribute-names.js';
export { isReservedWord, RESERVED_WORDS } from './reserved-words.js';
export { clearParseCache, parseCacheStats } from './parse-cache.js';
export { checkExpressionMixing } from './legacy-mixing.js';
export { keyConditionTemplate } from './key-condition-template.js';
export type { KeyConditionTemplate, TemplateClause, TemplateOp } from './key-condition-template.js';

/** True when `item` satisfies `cond`; `undefined` is the absent item. */
export function evaluateCondition(cond: Condition, item: Item | undefined): boolean {
  return evaluateConditionNode(cond, item);
}

/**
 * Applies `plan` to `item` (undefined = absent: the update creates it; the caller adds the key).
 * `updatedOld`/`updatedNew` hold only the touched (sub)paths, for ReturnValues UPDATED_OLD/NEW.
 * Size, nesting and key-type limits of the result are the caller's to check.
 */
export function applyUpdate(plan: UpdatePlan, item: Item | undefined, keyNames: readonly string[]): UpdateResult {
  return applyUpdatePlan(plan, item, keyNames);
}

export function projectItem(p: Projection, item: Item): Item {
  return projectTree(p.tree, item);
}

export function projectionTopLevelNames(p: Projection): ReadonlySet<string> {
  return p.topLevelNames;
}

export function analyzeKeyCondition(c: Condition, schema: PrimaryKeySchema): KeyRange {
  return analyzeKeyConditionNode(c, schema);
}

export { compileRequest, hasExpressionMembers } from './legacy-compile-request.js';
export type { RequestOperation } from './legacy-compile-request.js';
