/** ProjectionExpression grammar: `path (',' path)*`. */
import type { Parsed, ProjectionNode } from './ast.js';
import { freezeTree } from './ast.js';
import { NO_KEYWORDS, parsePath } from './parse-operand.js';
import { ParserState } from './parser-state.js';

export function parseProjection(source: string): ProjectionNode<Parsed> {
  const state = new ParserState('ProjectionExpression', source);
  const paths = [parsePath(state, NO_KEYWORDS)];
  while (state.at(',')) {
    state.next();
    paths.push(parsePath(state, NO_KEYWORDS));
  }
  if (state.peek().type !== 'eof') throw state.syntaxError();
  state.throwIssues(['reserved', 'depth']);
  return freezeTree({ kind: 'projection', paths });
}
