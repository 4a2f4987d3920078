/**
 * AttributeUpdates -> a resolved update plan (§6.2, §7.7), one action per top-level attribute:
 *
 *   {Action: PUT (default), Value: v}      ->  SET a = v
 *   {Action: DELETE}                       ->  REMOVE a
 *   {Action: DELETE, Value: set}           ->  DELETE a set   (the attribute goes when emptied)
 *   {Action: ADD, Value: number | set}     ->  ADD a v        (missing a: starts at 0 / empty)
 *   {Action: ADD, Value: list}             ->  SET a = list_append(if_not_exists(a, []), v)
 *
 * Key attributes are rejected when the plan is applied (applyUpdate knows the key names), with
 * `One or more parameter values were invalid: Cannot update attribute <k>. This attribute is
 * part of the key`. Request-time texts are the service's (dynalite's live captures).
 */
import { typeOf, type AttributeValue } from '../model/attribute-value.js';
import { INVALID_PARAMETERS, invalid } from '../model/errors.js';
import { validateAttributeValue } from '../model/validate-attribute-value.js';
import { freezeTree, type Operand, type Resolved, type UpdateAction } from './ast.js';
import type { UpdatePlan } from './compile-expressions.js';
import { constraintError, enumConstraint, isPresent, memberName, readString, type LegacyEntry } from './legacy-shape.js';

export const ATTRIBUTE_ACTIONS = ['ADD', 'PUT', 'DELETE'] as const;
export type AttributeAction = (typeof ATTRIBUTE_ACTIONS)[number];

/** The entry's Action (default PUT), enum-checked. */
export function readAction(name: string, entry: LegacyEntry): AttributeAction {
  const action = readString(entry, 'Action');
  if (action === undefined) return 'PUT';
  if (!(ATTRIBUTE_ACTIONS as readonly string[]).includes(action)) {
    throw constraintError(action, `${memberName('AttributeUpdates')}.${name}.member.action`, enumConstraint(ATTRIBUTE_ACTIONS));
  }
  return action as AttributeAction;
}

const SET_TYPES = new Set(['SS', 'NS', 'BS']);
const ADD_TYPES = new Set(['L', 'SS', 'NS', 'BS', 'N']);

function action(name: string, entry: LegacyEntry): UpdateAction<Resolved> {
  const kind = readAction(name, entry);
  const path = [name];
  const value: AttributeValue | undefined = isPresent(entry.Value) ? validateAttributeValue(entry.Value) : undefined;
  if (value === undefined) {
    if (kind !== 'DELETE') throw invalid(`${INVALID_PARAMETERS}Only DELETE action is allowed when no attribute value is specified`);
    return { kind: 'remove', path };
  }
  const type = typeOf(value);
  switch (kind) {
    case 'PUT':
      return { kind: 'set', path, value: { kind: 'value', value } };
    case 'DELETE':
      if (!SET_TYPES.has(type)) throw invalid(`${INVALID_PARAMETERS}DELETE action with value is not supported for the type ${type}`);
      return { kind: 'delete', path, value: { kind: 'value', value } };
    case 'ADD': {
      if (!ADD_TYPES.has(type)) throw invalid(`${INVALID_PARAMETERS}ADD action is not supported for the type ${type}`);
      if (type !== 'L') return { kind: 'add', path, value: { kind: 'value', value } };
      const existing: Operand<Resolved> = {
        kind: 'call',
        name: 'if_not_exists',
        args: [
          { kind: 'path', path },
          { kind: 'value', value: { L: [] } },
        ],
      };
      return { kind: 'set', path, value: { kind: 'call', name: 'list_append', args: [existing, { kind: 'value', value }] } };
    }
  }
}

/** The plan for AttributeUpdates' entries, checked in map order; undefined for none. */
export function compileAttributeUpdates(entries: readonly (readonly [string, LegacyEntry])[]): UpdatePlan | undefined {
  if (entries.length === 0) return undefined;
  return freezeTree({ kind: 'update', actions: entries.map(([name, entry]) => action(name, entry)) });
}
