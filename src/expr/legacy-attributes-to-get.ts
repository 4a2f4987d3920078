/**
 * AttributesToGet -> a projection of top-level attributes (§7.7). Names are literal: `a.b` is
 * the attribute named "a.b", never a path. 1..255 names, no duplicates.
 */
import { INVALID_PARAMETERS, invalid } from '../model/errors.js';
import { expectList, expectString } from '../model/wire-shape.js';
import type { Projection } from './compile-expressions.js';
import { buildProjectionTree } from './project.js';
import { constraintError } from './legacy-shape.js';

const MAX_ATTRIBUTES_TO_GET = 255;

/** @throws SerializationException (not a list of strings) | ValidationException */
export function compileAttributesToGet(raw: unknown): Projection {
  expectList(raw);
  const names = raw as readonly unknown[];
  for (const name of names) expectString(name);
  if (names.length < 1) throw constraintError(names, 'attributesToGet', 'Member must have length greater than or equal to 1');
  if (names.length > MAX_ATTRIBUTES_TO_GET) {
    throw constraintError(names, 'attributesToGet', `Member must have length less than or equal to ${MAX_ATTRIBUTES_TO_GET}`);
  }
  const seen = new Set<string>();
  for (const name of names as readonly string[]) {
    if (seen.has(name)) throw invalid(`${INVALID_PARAMETERS}Duplicate value in attribute name: ${name}`);
    seen.add(name);
  }
  const paths = [...seen].map((name) => Object.freeze([name]));
  return Object.freeze({ paths: Object.freeze(paths), tree: buildProjectionTree(paths), topLevelNames: seen });
}
