import { describe, expect, it } from 'vitest';
import { isReservedWord, RESERVED_WORDS } from '../../src/expr/reserved-words.js';

describe('reserved words', () => {
  it('holds the 573 words of the Developer Guide, unique and upper case', () => {
    expect(RESERVED_WORDS).toHaveLength(573);
    expect(new Set(RESERVED_WORDS).size).toBe(573);
    expect(RESERVED_WORDS[0]).toBe('ABORT');
    expect(RESERVED_WORDS[572]).toBe('ZONE');
    for (const w of RESERVED_WORDS) expect(w).toBe(w.toUpperCase());
  });
  it('matches case-insensitively and only whole words', () => {
    for (const w of ['name', 'Name', 'NAME', 'status', 'Data', 'ttl', 'size', 'ZONE']) expect(isReservedWord(w)).toBe(true);
    for (const w of ['names1', 'nam', 'statuses', 'pk', 'sk', 'gone', 'n']) expect(isReservedWord(w)).toBe(false);
  });
});
