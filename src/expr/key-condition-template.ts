/**
 * The shape of a common KeyConditionExpression, read once per expression text: `a = :v`, or that
 * ANDed (either side) with one of `b <op> :w`, `b BETWEEN :w AND :x`, `begins_with(b, :w)`, where
 * a and b are plain attribute names (no #name references), each value placeholder is used once,
 * and a comparison has its attribute on the left. Queries whose expression has this shape may
 * skip compiling it per request (ops/request/plain-query.ts); the template says which placeholder holds
 * which key value. Any other text, including one that fails to parse, has no template and
 * goes through compileExpressions, which reports it.
 */
import type { ConditionNode, Operand, Parsed } from './ast.js';
import { parseExpression } from './parse-cache.js';

export type TemplateOp = '=' | '<' | '<=' | '>' | '>=' | 'BETWEEN' | 'begins_with';

/** One key condition: the attribute it names, its operator and its placeholders in operand order. */
export type TemplateClause = { readonly name: string; readonly op: TemplateOp; readonly placeholders: readonly string[] };

/** One or two clauses, in the order written; placeholders are distinct. */
export type KeyConditionTemplate = { readonly clauses: readonly TemplateClause[]; readonly placeholderCount: number };

/** Texts per cache, bounded like the parse cache; a text without a template is cached as null. */
const TEMPLATE_CACHE_ENTRIES = 512;
const templates = new Map<string, KeyConditionTemplate | null>();

export function keyConditionTemplate(text: string): KeyConditionTemplate | undefined {
  let template = templates.get(text);
  if (template === undefined) {
    template = templateOf(text);
    if (templates.size >= TEMPLATE_CACHE_ENTRIES) templates.delete(templates.keys().next().value as string);
    templates.set(text, template);
  }
  return template ?? undefined;
}

function templateOf(text: string): KeyConditionTemplate | null {
  let root: ConditionNode<Parsed>;
  try {
    root = parseExpression('KeyConditionExpression', text);
  } catch {
    return null; // the general path parses it again and reports the error
  }
  const nodes = root.kind === 'and' ? [root.left, root.right] : [root];
  const clauses: TemplateClause[] = [];
  const seen = new Set<string>();
  for (const node of nodes) {
    const clause = clauseOf(node);
    if (clause === null) return null;
    for (const p of clause.placeholders) {
      if (seen.has(p)) return null;
      seen.add(p);
    }
    clauses.push(clause);
  }
  return Object.freeze({ clauses: Object.freeze(clauses), placeholderCount: seen.size });
}

function clauseOf(node: ConditionNode<Parsed>): TemplateClause | null {
  switch (node.kind) {
    case 'compare': {
      const name = plainName(node.left);
      if (name === null || node.right.kind !== 'value' || node.op === '<>') return null;
      return Object.freeze({ name, op: node.op, placeholders: Object.freeze([node.right.value]) });
    }
    case 'between': {
      const name = plainName(node.subject);
      if (name === null || node.low.kind !== 'value' || node.high.kind !== 'value') return null;
      return Object.freeze({ name, op: 'BETWEEN' as const, placeholders: Object.freeze([node.low.value, node.high.value]) });
    }
    case 'function': {
      if (node.name !== 'begins_with' || node.args.length !== 2) return null;
      const name = plainName(node.args[0]!);
      const value = node.args[1]!;
      if (name === null || value.kind !== 'value') return null;
      return Object.freeze({ name, op: 'begins_with' as const, placeholders: Object.freeze([value.value]) });
    }
    default:
      return null;
  }
}

/** The attribute name of a one-segment path written as a plain name, else null. */
function plainName(operand: Operand<Parsed>): string | null {
  if (operand.kind !== 'path' || operand.path.length !== 1) return null;
  const segment = operand.path[0]!;
  return segment.kind === 'name' ? segment.name : null;
}
