/**
 * Request-level expression handling: validates ExpressionAttributeNames/Values, parses each
 * expression (cached), resolves placeholders, runs the value-dependent checks and finally
 * rejects placeholders no expression used (§7.1). Throws ValidationException with DynamoDB's
 * text; the result holds only resolved, immutable forms.
 */
import type { AttributeValue } from '../model/attribute-value.js';
import { ValidationException, invalid } from '../model/errors.js';
import { validateAttributeValue } from '../model/validate-attribute-value.js';
import type { ValueLayer } from '../model/value-layer.js';
import type { ConditionNode, DocumentPath, Parsed, Resolved, UpdateNode } from './ast.js';
import { checkCondition, checkProjection, checkUpdate } from './check-resolved.js';
import { checkParameterMapsSize, checkPlaceholderLength } from './parameter-limits.js';
import type { ExpressionKind } from './expression-error.js';
import { parseExpression } from './parse-cache.js';
import { buildProjectionTree, type ProjectionTree } from './project.js';
import { resolveCondition, resolveProjection, resolveUpdate, type ResolveContext } from './resolve.js';

export type ExpressionRequest = {
  ConditionExpression?: string;
  FilterExpression?: string;
  KeyConditionExpression?: string;
  UpdateExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  /** Wire form: validated here. */
  ExpressionAttributeValues?: Record<string, unknown>;
};

/** A resolved condition, filter or key condition. */
export type Condition = ConditionNode<Resolved>;
/** A resolved UpdateExpression. */
export type UpdatePlan = UpdateNode<Resolved>;
/** A resolved ProjectionExpression. */
export type Projection = {
  readonly paths: readonly DocumentPath[];
  readonly tree: ProjectionTree;
  readonly topLevelNames: ReadonlySet<string>;
};

export type CompiledExpressions = {
  condition?: Condition;
  filter?: Condition;
  keyCondition?: Condition;
  update?: UpdatePlan;
  projection?: Projection;
};

/** Expressions that may hold `:values` (ProjectionExpression cannot). */
export type ValueExpressionKind = Exclude<ExpressionKind, 'ProjectionExpression'>;

/** A misused ExpressionAttributeNames/Values parameter: a semantic check, bare (spec §8.4). */
function misuse(message: string): ValidationException {
  return invalid(message);
}

const NAME_KEY = /^#[A-Za-z0-9_]+$/;
const VALUE_KEY = /^:[A-Za-z0-9_]+$/;

/**
 * The values, converted by `layer`'s checker. The older one reports a value's error inside
 * `ExpressionAttributeValues contains invalid value: <error> for key <k>`; the current one
 * reports it as it is (model/value-layer.ts).
 */
function validateValues(wire: Record<string, unknown>, layer: ValueLayer): Map<string, AttributeValue> {
  const values = new Map<string, AttributeValue>();
  for (const key of Object.keys(wire)) {
    if (!VALUE_KEY.test(key)) throw misuse(`ExpressionAttributeValues contains invalid key: Syntax error; key: "${key}"`);
    checkPlaceholderLength('ExpressionAttributeValues', key);
    if (layer === 'current') {
      values.set(key, validateAttributeValue(wire[key]));
      continue;
    }
    try {
      values.set(key, validateAttributeValue(wire[key], 1, layer));
    } catch (e) {
      if (e instanceof ValidationException) {
        throw new ValidationException(`ExpressionAttributeValues contains invalid value: ${e.message} for key ${key}`, { cause: e });
      }
      throw e;
    }
  }
  return values;
}

function unused(defined: Iterable<string>, used: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const key of defined) if (!used.has(key)) out.push(key);
  return out;
}

/**
 * Every expression of `req` compiled, after its ExpressionAttributeNames/Values are checked;
 * `layer`: the value checker the calling operation runs (model/value-layer.ts).
 */
export function compileExpressions(req: ExpressionRequest, layer: ValueLayer = 'current'): CompiledExpressions {
  const { ExpressionAttributeNames: names, ExpressionAttributeValues: wireValues } = req;
  if (names !== undefined && Object.keys(names).length === 0) throw misuse('ExpressionAttributeNames must not be empty');
  if (wireValues !== undefined && Object.keys(wireValues).length === 0) throw misuse('ExpressionAttributeValues must not be empty');
  const anyExpression =
    req.ConditionExpression !== undefined ||
    req.FilterExpression !== undefined ||
    req.KeyConditionExpression !== undefined ||
    req.UpdateExpression !== undefined ||
    req.ProjectionExpression !== undefined;
  if (names !== undefined && !anyExpression) throw misuse('ExpressionAttributeNames can only be specified when using expressions');
  if (
    wireValues !== undefined &&
    req.ConditionExpression === undefined &&
    req.FilterExpression === undefined &&
    req.KeyConditionExpression === undefined &&
    req.UpdateExpression === undefined
  ) {
    // The 2026 captures (PutItem, DeleteItem) end here: no `: ConditionExpression is null` tail.
    throw misuse('ExpressionAttributeValues can only be specified when using expressions');
  }
  if (names !== undefined) {
    for (const key of Object.keys(names)) {
      if (!NAME_KEY.test(key)) throw misuse(`ExpressionAttributeNames contains invalid key: Syntax error; key: "${key}"`);
      checkPlaceholderLength('ExpressionAttributeNames', key);
      if (names[key] === '') throw misuse(`ExpressionAttributeNames contains invalid value: Empty attribute name for key ${key}`);
    }
  }
  const values = wireValues === undefined ? EMPTY_VALUES : validateValues(wireValues, layer);
  checkParameterMapsSize(names, values);
  const usedNames = new Set<string>();
  const usedValues = new Set<string>();
  const context = (kind: ExpressionKind): ResolveContext => ({ kind, names, values, usedNames, usedValues });

  const out: CompiledExpressions = {};
  if (req.KeyConditionExpression !== undefined) {
    out.keyCondition = condition('KeyConditionExpression', req.KeyConditionExpression, context);
  }
  if (req.UpdateExpression !== undefined) {
    const update = resolveUpdate(parseExpression('UpdateExpression', req.UpdateExpression), context('UpdateExpression'));
    checkUpdate(update);
    out.update = update;
  }
  if (req.ConditionExpression !== undefined) {
    out.condition = condition('ConditionExpression', req.ConditionExpression, context);
  }
  if (req.FilterExpression !== undefined) {
    out.filter = condition('FilterExpression', req.FilterExpression, context);
  }
  if (req.ProjectionExpression !== undefined) {
    const node = resolveProjection(parseExpression('ProjectionExpression', req.ProjectionExpression), context('ProjectionExpression'));
    checkProjection(node);
    out.projection = {
      paths: node.paths,
      tree: buildProjectionTree(node.paths),
      topLevelNames: new Set(node.paths.map((p) => p[0] as string)),
    };
  }
  if (names !== undefined && usedNames.size < Object.keys(names).length) {
    throw misuse(`Value provided in ExpressionAttributeNames unused in expressions: keys: {${unused(Object.keys(names), usedNames).join(', ')}}`);
  }
  if (usedValues.size < values.size) {
    throw misuse(`Value provided in ExpressionAttributeValues unused in expressions: keys: {${unused(values.keys(), usedValues).join(', ')}}`);
  }
  return out;
}

const EMPTY_VALUES: ReadonlyMap<string, AttributeValue> = new Map();

function condition(
  kind: 'ConditionExpression' | 'FilterExpression' | 'KeyConditionExpression',
  text: string,
  context: (kind: ExpressionKind) => ResolveContext,
): Condition {
  const parsed = parseExpression(kind, text);
  if (kind === 'KeyConditionExpression') return keyCondition(parsed, context(kind));
  const node = resolveCondition(parsed, context(kind));
  checkCondition(kind, node);
  return node;
}

/**
 * A key condition is resolved and checked clause by clause (the operands of its ANDs), in the
 * order written, as DynamoDB does: the first clause's problem wins, whether an undefined value or
 * an operand of the wrong type (`begins_with(sk, :n) AND pk = :missing` reports the operand).
 */
function keyCondition(node: ConditionNode<Parsed>, ctx: ResolveContext): Condition {
  if (node.kind === 'and') return { kind: 'and', left: keyCondition(node.left, ctx), right: keyCondition(node.right, ctx) };
  const resolved = resolveCondition(node, ctx);
  checkCondition('KeyConditionExpression', resolved);
  return resolved;
}
