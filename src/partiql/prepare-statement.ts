/**
 * The steps every PartiQL operation shares for one statement: check the request members of a
 * statement (DynamoDB's constraints), parse (cached), check the parameter count and values, compile.
 */
import { SerializationException, ValidationException } from '../model/errors.js';
import type { EngineContext } from '../ops/engine-context.js';
import type { ConstraintErrors } from '../ops/request/request-checks.js';
import type { Statement } from './ast.js';
import { checkParameters } from './check-parameters.js';
import { compileStatement, type CompiledStatement } from './compile-statement.js';
import { parseStatement } from './parse-statement.js';

export const MAX_STATEMENT_CHARS = 8192;

/** Collects constraint failures of `Statement` and `Parameters` under `prefix` (e.g. 'statements.1.member.'). */
export function checkStatementMembers(errors: ConstraintErrors, raw: Record<string, unknown>, prefix = ''): void {
  const s = raw.Statement;
  if (s === undefined || s === null) errors.addNull(`${prefix}statement`);
  else if (typeof s !== 'string') throw new SerializationException(`Unexpected value type for ${prefix}statement: expected a string`);
  else {
    if (s.length < 1) errors.add(s, `${prefix}statement`, 'Member must have length greater than or equal to 1');
    if (s.length > MAX_STATEMENT_CHARS) errors.add(s, `${prefix}statement`, `Member must have length less than or equal to ${MAX_STATEMENT_CHARS}`);
  }
  const p = raw.Parameters;
  if (p !== undefined && p !== null) {
    if (!Array.isArray(p)) throw new SerializationException(`Unexpected value type for ${prefix}parameters: expected a list`);
    if (p.length < 1) errors.add(p, `${prefix}parameters`, 'Member must have length greater than or equal to 1');
  }
}

export type PreparedStatement = { readonly statement: Statement; readonly compiled: CompiledStatement };

/** Parses and compiles one statement with its parameters (members already checked). */
export function prepareStatement(ctx: EngineContext, text: string, parameters: readonly unknown[] | undefined): PreparedStatement {
  const { statement, parameterCount } = parseStatement(text);
  const given = parameters ?? [];
  if (given.length !== parameterCount) throw new ValidationException("Number of parameters in request and statement don't match.");
  for (const p of given) {
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new ValidationException('Supplied AttributeValue is empty, must contain exactly one of the supported datatypes');
  }
  checkParameters(given);
  return { statement, compiled: compileStatement(statement, given, (name) => ctx.catalog.find(name)) };
}
