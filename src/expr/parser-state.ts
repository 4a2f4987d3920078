/**
 * Cursor over a token list plus the static-issue log every parser shares.
 *
 * Syntax errors are thrown at once, at the first token the grammar cannot accept, in DynamoDB's
 * form: `Syntax error; token: "<tok>", near: "<context>"`, where the context is the source text
 * from the start of the token before the offending one to the end of the token after it.
 *
 * Other static problems (reserved words, unknown functions, ...) are recorded while parsing
 * continues and thrown afterwards in DynamoDB's priority order, because the service reports
 * e.g. redundant parentheses ahead of a reserved word that appears earlier in the text.
 */
import type { ValidationException } from '../model/errors.js';
import { expressionError, type ExpressionKind } from './expression-error.js';
import { tokenize, type Token } from './tokenize.js';

export type IssueCategory =
  | 'limits'
  | 'parens'
  | 'function'
  | 'misused'
  | 'reserved'
  | 'section'
  | 'depth'
  | 'operands';

export class ParserState {
  readonly kind: ExpressionKind;
  readonly source: string;
  readonly tokens: readonly Token[];
  pos = 0;
  operatorCount = 0;
  private readonly issues = new Map<IssueCategory, string>();

  constructor(kind: ExpressionKind, source: string) {
    this.kind = kind;
    this.source = source;
    this.tokens = tokenize(source);
  }

  peek(ahead = 0): Token {
    const i = Math.min(this.pos + ahead, this.tokens.length - 1);
    return this.tokens[i]!;
  }

  next(): Token {
    const token = this.peek();
    if (this.pos < this.tokens.length - 1) this.pos++;
    return token;
  }

  /** Is the current token the punctuation `text`? */
  at(text: string): boolean {
    const t = this.peek();
    return t.type === 'punct' && t.text === text;
  }

  /** Is the current token the keyword `word` (keywords are case-insensitive)? */
  atKeyword(word: string): boolean {
    const t = this.peek();
    return t.type === 'word' && t.text.length === word.length && t.text.toUpperCase() === word;
  }

  expect(text: string): Token {
    if (!this.at(text)) throw this.syntaxError();
    return this.next();
  }

  syntaxError(at = this.pos): ValidationException {
    const token = this.tokens[at]!;
    const from = at > 0 ? this.tokens[at - 1]!.start : token.start;
    const to = at + 1 < this.tokens.length ? this.tokens[at + 1]!.end : token.end;
    return expressionError(
      this.kind,
      `Syntax error; token: "${token.text}", near: "${this.source.slice(from, to)}"`);
  }

  /** Keeps the first message of each category. */
  record(category: IssueCategory, message: string): void {
    if (!this.issues.has(category)) this.issues.set(category, message);
  }

  /** Throws the recorded issue that DynamoDB would report first, if any. */
  throwIssues(order: readonly IssueCategory[]): void {
    for (const category of order) {
      const message = this.issues.get(category);
      if (message !== undefined) throw expressionError(this.kind, message);
    }
  }

  /** Index of the `)` matching the `(` at `open`, or -1. */
  matchingParen(open: number): number {
    let depth = 0;
    for (let i = open; i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.type !== 'punct') continue;
      if (t.text === '(') depth++;
      else if (t.text === ')' && --depth === 0) return i;
    }
    return -1;
  }
}
