/** A cursor over PartiQL tokens with the small helpers every parsing stage uses. */
import { PartiqlSyntaxError } from './partiql-errors.js';
import type { Token } from './tokenize.js';

export class ParserState {
  private at = 0;
  /** `?` parameters seen so far; each gets the next position. */
  parameters = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  get peek(): Token {
    return this.tokens[this.at]!;
  }

  peekAt(offset: number): Token {
    return this.tokens[Math.min(this.at + offset, this.tokens.length - 1)]!;
  }

  next(): Token {
    const t = this.tokens[this.at]!;
    if (t.type !== 'eof') this.at++;
    return t;
  }

  /** True when the next token is the keyword (case-insensitive, unquoted). */
  isKeyword(word: string, offset = 0): boolean {
    const t = this.peekAt(offset);
    return t.type === 'word' && t.text.toUpperCase() === word;
  }

  isPunct(text: string): boolean {
    return this.peek.type === 'punct' && this.peek.text === text;
  }

  acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.next();
    return true;
  }

  acceptPunct(text: string): boolean {
    if (!this.isPunct(text)) return false;
    this.next();
    return true;
  }

  expectKeyword(word: string): void {
    if (!this.acceptKeyword(word)) throw this.unexpected(word);
  }

  expectPunct(text: string): void {
    if (!this.acceptPunct(text)) throw this.unexpected(`'${text}'`);
  }

  /** A name: a word or a quoted identifier. */
  name(what: string): string {
    const t = this.peek;
    if (t.type !== 'word' && t.type !== 'quoted') throw this.unexpected(what);
    this.next();
    return t.text;
  }

  unexpected(expected: string): PartiqlSyntaxError {
    const t = this.peek;
    const found = t.type === 'eof' ? 'end of statement' : `'${t.text}'`;
    return new PartiqlSyntaxError(`Expected ${expected} but found ${found} at position ${t.start}`);
  }
}

/** Freezes a syntax tree node (shallowly: its children are frozen when they are made). */
export function node<T extends object>(value: T): T {
  return Object.freeze(value);
}
