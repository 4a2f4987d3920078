/** Which item form an input looks like, and the hint put and import add to a refusal. */
import { describe, expect, it } from 'vitest';
import { isDynamoJsonItem, itemFormHint, lineFormHint, withFormHint } from '../../src/cli/item-form.js';
import { CliError } from '../../src/cli/cli-io.js';

describe('isDynamoJsonItem', () => {
  it.each([
    [{ id: { S: 'a' } }, true],
    [{ id: { S: 'a' }, n: { N: '1' }, m: { M: { x: { BOOL: true } } }, l: { L: [] }, s: { SS: ['a'] }, z: { NULL: true } }, true],
    [{ id: 'a' }, false],
    [{ id: { S: 'a' }, n: 1 }, false],
    [{ id: { S: 'a', N: '1' } }, false],
    [{ id: { X: 'a' } }, false],
    [{}, false],
    [[{ S: 'a' }], false],
    ['text', false],
    [null, false],
  ])('%j -> %s', (value, expected) => {
    expect(isDynamoJsonItem(value)).toBe(expected);
  });
});

describe('itemFormHint (put)', () => {
  it('without --plain, names --plain for a plain item and says nothing for DynamoDB JSON', () => {
    expect(itemFormHint({ id: 'a' }, false)).toBe(`the item looks like plain JSON ('{"id":"a"}'): add --plain, or write it in DynamoDB JSON ('{"id":{"S":"a"}}')`);
    expect(itemFormHint({ id: { S: 'a' } }, false)).toBeUndefined();
  });

  it('with --plain, says to leave it out for DynamoDB JSON and says nothing for a plain item', () => {
    expect(itemFormHint({ id: { S: 'a' } }, true)).toBe(`the item looks like DynamoDB JSON ('{"id":{"S":"a"}}'): leave out --plain`);
    expect(itemFormHint({ id: 'a' }, true)).toBeUndefined();
  });
});

describe('lineFormHint (import)', () => {
  it.each([
    [{ id: 'a' }, false, /plain JSON item .*: import with --plain$/],
    [{ id: { S: 'a' } }, false, /without its \{"Item": \.\.\.\} wrapper$/],
    [{ Item: { id: 'a' } }, false, /Item looks like plain JSON/],
    [{ Item: { id: { S: 'a' } } }, false, undefined],
    [{ Item: 5 }, false, undefined],
    [{ Item: { id: { S: 'a' } } }, true, /export's DynamoDB JSON .*: import without --plain$/],
    [{ id: { S: 'a' } }, true, /looks like DynamoDB JSON .*: import without --plain/],
    [{ id: 'a' }, true, undefined],
    [[1, 2], true, undefined],
  ])('%j (--plain %s)', (line, plain, expected) => {
    const hint = lineFormHint(line, plain);
    if (expected === undefined) expect(hint).toBeUndefined();
    else expect(hint).toMatch(expected);
  });
});

describe('withFormHint', () => {
  it("adds the hint to a validation or serialization error's first line, keeping its name", () => {
    const error = Object.assign(new Error('Unexpected value type in payload\nmore'), { name: 'SerializationException' });
    const hinted = withFormHint(error, 'add --plain') as Error;
    expect(hinted).toBeInstanceOf(CliError);
    expect([hinted.name, hinted.message]).toEqual(['SerializationException', 'Unexpected value type in payload (add --plain)']);
  });

  it('leaves other errors, and errors without a hint, as they were', () => {
    const storage = Object.assign(new Error('map full'), { name: 'StorageError' });
    expect(withFormHint(storage, 'add --plain')).toBe(storage);
    const validation = Object.assign(new Error('bad'), { name: 'ValidationException' });
    expect(withFormHint(validation, undefined)).toBe(validation);
  });
});
