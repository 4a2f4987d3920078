/**
 * Expression tokenizer, shared by every expression kind.
 *
 * Token grammar (whitespace = space, tab, CR, LF, skipped between tokens):
 *   word    ::= [A-Za-z_][A-Za-z0-9_]*        attribute names, keywords, function names
 *   nameRef ::= '#' [A-Za-z0-9_]+
 *   valueRef::= ':' [A-Za-z0-9_]+
 *   number  ::= [0-9]+                         list indexes
 *   punct   ::= '<>' | '<=' | '>=' | '=' | '<' | '>' | '+' | '-' | '(' | ')' | '[' | ']' | '.' | ','
 *   other   ::= any single character not above (always a syntax error where it appears)
 * The list always ends with an `eof` token whose text is `<EOF>`.
 */

export type TokenType = 'word' | 'nameRef' | 'valueRef' | 'number' | 'punct' | 'other' | 'eof';

export type Token = {
  readonly type: TokenType;
  readonly text: string;
  /** UTF-16 offsets into the expression: `text === source.slice(start, end)` except for eof. */
  readonly start: number;
  readonly end: number;
};

const TWO_CHAR = new Set(['<>', '<=', '>=']);
const ONE_CHAR = new Set(['=', '<', '>', '+', '-', '(', ')', '[', ']', '.', ',']);

function isWordStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isWordPart(c: number): boolean {
  return isWordStart(c) || isDigit(c);
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    let type: TokenType;
    if (isWordStart(c)) {
      while (i < n && isWordPart(source.charCodeAt(i))) i++;
      type = 'word';
    } else if (isDigit(c)) {
      while (i < n && isDigit(source.charCodeAt(i))) i++;
      type = 'number';
    } else if ((c === 35 || c === 58) && i + 1 < n && isWordPart(source.charCodeAt(i + 1))) {
      i++;
      while (i < n && isWordPart(source.charCodeAt(i))) i++;
      type = c === 35 ? 'nameRef' : 'valueRef';
    } else if (TWO_CHAR.has(source.slice(i, i + 2))) {
      i += 2;
      type = 'punct';
    } else if (ONE_CHAR.has(source[i]!)) {
      i++;
      type = 'punct';
    } else {
      // One code point, so a surrogate pair is reported whole.
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < n ? 2 : 1;
      type = 'other';
    }
    tokens.push({ type, text: source.slice(start, i), start, end: i });
  }
  tokens.push({ type: 'eof', text: '<EOF>', start: n, end: n });
  return tokens;
}
