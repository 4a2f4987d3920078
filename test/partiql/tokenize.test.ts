import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/partiql/tokenize.js';
import { thrown } from './partiql-fixture.js';

const shape = (s: string) => tokenize(s).map((t) => `${t.type}:${t.text}`);

describe('the PartiQL tokenizer', () => {
  it.each([
    [`SELECT * FROM "My Table"`, ['word:SELECT', 'punct:*', 'word:FROM', 'quoted:My Table', 'eof:<EOF>']],
    [`'it''s' "a""b"`, [`string:it's`, 'quoted:a"b', 'eof:<EOF>']],
    ['a<=1.5e3 AND b<>-2', ['word:a', 'punct:<=', 'number:1.5e3', 'word:AND', 'word:b', 'punct:<>', 'punct:-', 'number:2', 'eof:<EOF>']],
    ['<<1,2>> [?] {}', ['punct:<<', 'number:1', 'punct:,', 'number:2', 'punct:>>', 'punct:[', 'punct:?', 'punct:]', 'punct:{', 'punct:}', 'eof:<EOF>']],
    ['x != .5 -- a comment\n', ['word:x', 'punct:!=', 'number:.5', 'eof:<EOF>']],
    ['/* a */x/**/=/* b\n c */1 /* * / */', ['word:x', 'punct:=', 'number:1', 'eof:<EOF>']],
    ["'/* in a string */' \"/*\"", ['string:/* in a string */', 'quoted:/*', 'eof:<EOF>']],
  ])('%s', (source, tokens) => {
    expect(shape(source)).toEqual(tokens);
  });

  it.each([
    ['a ; b @', "Statement wasn't well formed, can't be processed: Unexpected character '@' at position 6"],
    [`'open`, "Statement wasn't well formed, can't be processed: Unterminated string literal at position 0"],
    [`"open`, "Statement wasn't well formed, can't be processed: Unterminated quoted identifier at position 0"],
    ['x = 1 /* note', "Statement wasn't well formed, can't be processed: "],
    ['x = 1 # note', "Statement wasn't well formed, can't be processed: "],
  ])('rejects %s', (source, message) => {
    expect(thrown(() => tokenize(source)).message).toBe(message);
  });
});
