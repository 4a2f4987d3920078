/**
 * compileRequest: the one entry point the operations call to turn a request's condition,
 * filter, key condition, update and projection parameters — expression or legacy (§6.2, §7.7)
 * — into one CompiledExpressions. Legacy parameters become the same resolved forms as their
 * expression twins, so evaluateCondition / applyUpdate / projectItem / analyzeKeyCondition
 * handle both.
 *
 * Order, as the service reports errors: JSON shapes (SerializationException) and Coral member
 * constraints (enums, lengths) of every accepted parameter; expression/legacy mixing (§6.2);
 * ConditionalOperator misuse; then the operation's parameters in DynamoDB's (dynalite's) order,
 * e.g. UpdateItem: AttributeUpdates, Expected, expressions. Parameters an operation does not
 * have are ignored, as the service ignores unknown members.
 */
import { SerializationException } from '../model/errors.js';
import type { ValueLayer } from '../model/value-layer.js';
import { compileExpressions, type CompiledExpressions, type ExpressionRequest, type ValueExpressionKind } from './compile-expressions.js';
import type { ExpressionKind } from './expression-error.js';
import { compileAttributeUpdates, readAction } from './legacy-attribute-updates.js';
import { compileAttributesToGet } from './legacy-attributes-to-get.js';
import { checkConditionalOperatorUse, readConditionalOperator, type ConditionalOperator } from './legacy-conditional-operator.js';
import { compileExpected } from './legacy-expected.js';
import { compileLegacyFilter } from './legacy-filter.js';
import { compileKeyConditions } from './legacy-key-conditions.js';
import { checkExpressionMixing } from './legacy-mixing.js';
import { readComparisonOperator, readLegacyMap, type LegacyEntry } from './legacy-shape.js';

export type RequestOperation =
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'Scan'
  | 'TransactWriteItems'
  | 'TransactGetItems';

type LegacyMapParam = 'Expected' | 'QueryFilter' | 'ScanFilter' | 'KeyConditions' | 'AttributeUpdates';
type LegacyParam = LegacyMapParam | 'AttributesToGet' | 'ConditionalOperator';
type Step = LegacyMapParam | 'AttributesToGet' | 'expressions';

type Rules = {
  /** Expression parameters, in the order DynamoDB lists them in the mixing message. */
  readonly expressions: readonly ExpressionKind[];
  /** Legacy parameters, likewise. */
  readonly legacy: readonly LegacyParam[];
  /** Value-bearing expressions the operation accepts; undefined: it has no ExpressionAttributeValues member. */
  readonly values: readonly ValueExpressionKind[] | undefined;
  readonly steps: readonly Step[];
};

const WRITE_CONDITION: Rules = {
  expressions: ['ConditionExpression'],
  legacy: ['Expected'],
  values: ['ConditionExpression'],
  steps: ['Expected', 'expressions'],
};
const READ_PROJECTION: Rules = {
  expressions: ['ProjectionExpression'],
  legacy: ['AttributesToGet'],
  values: undefined,
  steps: ['AttributesToGet', 'expressions'],
};

const NO_EXPRESSIONS: CompiledExpressions = Object.freeze({});

function mentionsExpressions(req: Readonly<Record<string, unknown>>, rules: Rules): boolean {
  if (req.ExpressionAttributeNames !== undefined || req.ExpressionAttributeValues !== undefined || req.ConditionalOperator !== undefined) return true;
  for (const p of rules.expressions) if (req[p] !== undefined) return true;
  for (const p of rules.legacy) if (req[p] !== undefined) return true;
  return false;
}

/** Lists and steps follow dynalite's validations/<operation>.js (checked against the service). */
const RULES: Readonly<Record<RequestOperation, Rules>> = {
  PutItem: WRITE_CONDITION,
  DeleteItem: WRITE_CONDITION,
  UpdateItem: {
    expressions: ['UpdateExpression', 'ConditionExpression'],
    legacy: ['AttributeUpdates', 'Expected'],
    values: ['UpdateExpression', 'ConditionExpression'],
    steps: ['AttributeUpdates', 'Expected', 'expressions'],
  },
  GetItem: READ_PROJECTION,
  BatchGetItem: READ_PROJECTION,
  Query: {
    expressions: ['ProjectionExpression', 'FilterExpression', 'KeyConditionExpression'],
    legacy: ['AttributesToGet', 'QueryFilter', 'ConditionalOperator', 'KeyConditions'],
    values: ['FilterExpression', 'KeyConditionExpression'],
    steps: ['QueryFilter', 'AttributesToGet', 'expressions', 'KeyConditions'],
  },
  Scan: {
    expressions: ['ProjectionExpression', 'FilterExpression'],
    legacy: ['AttributesToGet', 'ScanFilter', 'ConditionalOperator'],
    values: ['FilterExpression'],
    steps: ['AttributesToGet', 'ScanFilter', 'expressions'],
  },
  // One Put / Update / Delete / ConditionCheck element; only Update has an UpdateExpression.
  TransactWriteItems: {
    expressions: ['UpdateExpression', 'ConditionExpression'],
    legacy: [],
    values: ['ConditionExpression'],
    steps: ['expressions'],
  },
  TransactGetItems: { expressions: ['ProjectionExpression'], legacy: [], values: undefined, steps: ['expressions'] },
};

/** The value checker each operation runs (model/value-layer.ts, 2026-10 captures). */
const VALUE_LAYER: Readonly<Record<RequestOperation, ValueLayer>> = {
  PutItem: 'current',
  UpdateItem: 'current',
  DeleteItem: 'current',
  GetItem: 'current',
  BatchGetItem: 'current',
  Query: 'current',
  Scan: 'older',
  TransactWriteItems: 'older',
  TransactGetItems: 'older',
};

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function expressionRequest(req: Readonly<Record<string, unknown>>, rules: Rules): ExpressionRequest {
  const out: ExpressionRequest = {};
  for (const field of rules.expressions) {
    const value = req[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new SerializationException(`Unexpected value type for ${field}: expected a string`);
    out[field] = value;
  }
  const names = req.ExpressionAttributeNames;
  if (names !== undefined && names !== null) {
    if (!isMap(names)) throw new SerializationException('Unexpected value type for ExpressionAttributeNames: expected a map');
    for (const v of Object.values(names)) {
      if (typeof v !== 'string') throw new SerializationException('Unexpected value type in ExpressionAttributeNames: expected a string');
    }
    out.ExpressionAttributeNames = names as Record<string, string>;
  }
  const values = req.ExpressionAttributeValues;
  if (rules.values !== undefined && values !== undefined && values !== null) {
    if (!isMap(values)) throw new SerializationException('Unexpected value type for ExpressionAttributeValues: expected a map');
    out.ExpressionAttributeValues = values;
  }
  return out;
}

/** Shapes and Coral constraints of the legacy parameters, before any request-level rule. */
function readLegacy(req: Readonly<Record<string, unknown>>, rules: Rules) {
  const maps = new Map<LegacyMapParam, [string, LegacyEntry][]>();
  for (const param of rules.legacy) {
    if (param === 'AttributesToGet' || param === 'ConditionalOperator') continue;
    const entries = readLegacyMap(req, param);
    if (entries === undefined) continue;
    for (const [name, entry] of entries) {
      if (param === 'AttributeUpdates') readAction(name, entry);
      else readComparisonOperator(param, name, entry, param !== 'Expected');
    }
    maps.set(param, entries);
  }
  const op = rules.legacy.includes('ConditionalOperator') || rules.legacy.includes('Expected') ? readConditionalOperator(req) : undefined;
  return { maps, op };
}

/**
 * Whether `req` has any member compileRequest would read for `operation`: without one, it compiles
 * to no expressions at all, and reports nothing.
 */
export function hasExpressionMembers(req: Readonly<Record<string, unknown>>, operation: RequestOperation): boolean {
  // mentionsExpressions' members, visited as the request has them (for-in, inherited ones too):
  // a request states few members, and each absent one costs a lookup.
  let members = expressionMembers.get(operation);
  if (members === undefined) {
    const rules = RULES[operation];
    expressionMembers.set(operation, (members = new Set(['ExpressionAttributeNames', 'ExpressionAttributeValues', 'ConditionalOperator', ...rules.expressions, ...rules.legacy])));
  }
  for (const name in req) if (members.has(name) && req[name] !== undefined) return true;
  return false;
}

/** Each operation's members that mentionsExpressions reads. */
const expressionMembers = new Map<RequestOperation, ReadonlySet<string>>();

/**
 * Compiles every condition, filter, key condition, update and projection parameter of one
 * request (for BatchGetItem: one RequestItems entry; for Transact*: one action's body).
 * @throws SerializationException | ValidationException with DynamoDB's texts
 */
export function compileRequest(req: Record<string, unknown>, operation: RequestOperation): CompiledExpressions {
  const rules = RULES[operation];
  // The common request carries no expression at all (a GetItem by key, a plain PutItem): answer
  // it without the validation passes below, which each look for parameters that are not there.
  if (!mentionsExpressions(req, rules)) return NO_EXPRESSIONS;
  const exprReq = expressionRequest(req, rules);
  const { maps, op } = readLegacy(req, rules);
  checkExpressionMixing(req, rules.expressions, rules.legacy);
  checkConditionalOperatorUse(op, (['Expected', 'QueryFilter', 'ScanFilter'] as const).filter((p) => rules.legacy.includes(p)).map((p) => req[p]));

  const out: CompiledExpressions = {};
  for (const step of rules.steps) {
    if (step === 'expressions') {
      Object.assign(out, compileExpressions(exprReq, VALUE_LAYER[operation]));
    } else if (step === 'AttributesToGet') {
      const raw = req.AttributesToGet;
      if (raw !== undefined && raw !== null) out.projection = compileAttributesToGet(raw);
    } else {
      const entries = maps.get(step);
      if (entries !== undefined) compileStep(step, entries, op, out);
    }
  }
  return out;
}

function compileStep(step: LegacyMapParam, entries: [string, LegacyEntry][], op: ConditionalOperator | undefined, out: CompiledExpressions): void {
  switch (step) {
    case 'Expected': {
      const condition = compileExpected(entries, op);
      if (condition !== undefined) out.condition = condition;
      return;
    }
    case 'QueryFilter':
    case 'ScanFilter': {
      const filter = compileLegacyFilter(step, entries, op);
      if (filter !== undefined) out.filter = filter;
      return;
    }
    case 'KeyConditions':
      out.keyCondition = compileKeyConditions(entries);
      return;
    case 'AttributeUpdates': {
      const update = compileAttributeUpdates(entries);
      if (update !== undefined) out.update = update;
      return;
    }
  }
}
