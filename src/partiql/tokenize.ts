/**
 * PartiQL tokenizer (the subset DynamoDB accepts).
 *
 * Token grammar (whitespace = space, tab, CR, LF, skipped between tokens, as are comments: `--` to
 * the end of the line, and `/* ... * /` (without the space), not nested):
 *   word     ::= [A-Za-z_][A-Za-z0-9_$]*        keywords (any case), attribute and table names
 *   quoted   ::= '"' ( [^"] | '""' )* '"'        a name, case kept ("" is one ")
 *   string   ::= "'" ( [^'] | "''" )* "'"        a string literal ('' is one ')
 *   number   ::= [0-9]+ ( '.' [0-9]+ )? ( [eE] [+-]? [0-9]+ )?  |  '.' [0-9]+ ...
 *   punct    ::= '<<' | '>>' | '<=' | '>=' | '<>' | '!=' | '=' | '<' | '>' | '(' | ')' | '[' | ']'
 *              | '{' | '}' | ',' | '.' | ':' | '*' | '?' | '+' | '-' | ';'
 * The list always ends with an `eof` token. A character outside the grammar is a syntax error;
 * DynamoDB gives no detail for `#` (no comment in PartiQL) nor for an unterminated block comment.
 */
import { PartiqlSyntaxError } from './partiql-errors.js';

export type TokenType = 'word' | 'quoted' | 'string' | 'number' | 'punct' | 'eof';

export type Token = {
  readonly type: TokenType;
  /** The token's value: a quoted name or string without quotes and with escapes undone. */
  readonly text: string;
  readonly start: number;
};

const TWO_CHAR = new Set(['<<', '>>', '<=', '>=', '<>', '!=']);
const ONE_CHAR = new Set(['=', '<', '>', '(', ')', '[', ']', '{', '}', ',', '.', ':', '*', '?', '+', '-', ';']);
const WORD_START = /[A-Za-z_]/;
const WORD_PART = /[A-Za-z0-9_$]/;
const DIGIT = /[0-9]/;
const NUMBER = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/;

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
      continue;
    }
    if (c === '-' && source[i + 1] === '-') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) throw new PartiqlSyntaxError('');
      i = end + 2;
      continue;
    }
    if (c === '#') throw new PartiqlSyntaxError('');
    const start = i;
    if (WORD_START.test(c)) {
      while (i < source.length && WORD_PART.test(source[i]!)) i++;
      tokens.push({ type: 'word', text: source.slice(start, i), start });
    } else if (c === '"' || c === "'") {
      const [text, end] = readQuoted(source, i, c);
      tokens.push({ type: c === '"' ? 'quoted' : 'string', text, start });
      i = end;
    } else if (DIGIT.test(c) || (c === '.' && DIGIT.test(source[i + 1] ?? ''))) {
      const m = NUMBER.exec(source.slice(i))!;
      tokens.push({ type: 'number', text: m[0], start });
      i += m[0].length;
    } else if (TWO_CHAR.has(source.slice(i, i + 2))) {
      tokens.push({ type: 'punct', text: source.slice(i, i + 2), start });
      i += 2;
    } else if (ONE_CHAR.has(c)) {
      tokens.push({ type: 'punct', text: c, start });
      i++;
    } else {
      throw new PartiqlSyntaxError(`Unexpected character '${c}' at position ${i}`);
    }
  }
  tokens.push({ type: 'eof', text: '<EOF>', start: source.length });
  return tokens;
}

function readQuoted(source: string, at: number, quote: string): [string, number] {
  let text = '';
  let i = at + 1;
  for (;;) {
    if (i >= source.length) throw new PartiqlSyntaxError(`Unterminated ${quote === '"' ? 'quoted identifier' : 'string literal'} at position ${at}`);
    const c = source[i]!;
    if (c === quote) {
      if (source[i + 1] === quote) {
        text += quote;
        i += 2;
        continue;
      }
      return [text, i + 1];
    }
    text += c;
    i++;
  }
}
