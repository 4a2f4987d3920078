/**
 * The hub's optimistic-concurrency rule (src/replication/version-check.ts), case by case: a put must be
 * the hub's version + 1 and, when it carries its base, made on the hub's very item; a delete must
 * carry a base equal to the hub's item; writes that change nothing are not conflicts.
 */
import { describe, expect, it } from 'vitest';
import { checkVersion, versionOf } from '../../src/replication/version-check.js';
import type { Item } from '../../src/model/attribute-value.js';
import type { ChangeRecord } from '../../src/stream/change-record.js';

const keys = { id: { S: 'job-1' } };
const job = (version: number | undefined, status: string): Item => ({ ...keys, status: { S: status }, ...(version === undefined ? {} : { version: { N: String(version) } }) });
const change = (eventName: ChangeRecord['eventName'], newImage?: Item, oldImage?: Item): ChangeRecord => ({
  kind: 'change',
  eventName,
  keys,
  ...(newImage ? { newImage } : {}),
  ...(oldImage ? { oldImage } : {}),
  timeMs: 0,
  hlc: { ms: 0, counter: 0 },
  sizeBytes: 0,
  ttl: false,
});

const cases: [string, ChangeRecord, Item | undefined, RegExp | undefined][] = [
  ['a new item at version 1', change('INSERT', job(1, 'open')), undefined, undefined],
  ['a new item at version 2', change('INSERT', job(2, 'open')), undefined, /version 2 is not the hub's version 0 \+ 1/],
  ['a new item where the hub has one at version 1', change('INSERT', job(1, 'mine')), job(1, 'theirs'), /version 1 is not the hub's version 1 \+ 1/],
  ['an identical item (copies that already agree)', change('INSERT', job(1, 'open')), job(1, 'open'), undefined],
  ['v2 on the hub’s v1, no base', change('MODIFY', job(2, 'done')), job(1, 'open'), undefined],
  ['v2 on the hub’s v2 (stale)', change('MODIFY', job(2, 'mine')), job(2, 'theirs'), /version 2 is not the hub's version 2 \+ 1/],
  ['v2 made on the hub’s v1 base', change('MODIFY', job(2, 'done'), job(1, 'open')), job(1, 'open'), undefined],
  ['v3 made on a refused v2 (a fork)', change('MODIFY', job(3, 'mine-2'), job(2, 'mine')), job(2, 'theirs'), /made on a version 2 the hub does not hold/],
  ['a put made on a base when the hub holds nothing', change('MODIFY', job(1, 'x'), job(0, 'y')), undefined, /made on version 0, the hub holds version 0|the hub does not hold/],
  ['no version attribute', change('MODIFY', job(undefined, 'x')), job(1, 'open'), /no integer version attribute version/],
  ['a non-integer version', change('MODIFY', { ...keys, version: { N: '2.5' } }), job(1, 'open'), /no integer version attribute/],
  ['a delete made on the hub’s item', change('REMOVE', undefined, job(1, 'open')), job(1, 'open'), undefined],
  ['a delete made on an older version', change('REMOVE', undefined, job(1, 'open')), job(2, 'done'), /made on version 1, the hub holds version 2/],
  ['a delete without its base', change('REMOVE'), job(1, 'open'), /carries no base version/],
  ['a delete of what the hub no longer holds', change('REMOVE', undefined, job(1, 'open')), undefined, undefined],
];

describe('checkVersion', () => {
  for (const [name, record, hub, refused] of cases) {
    it(`${name}: ${refused ? 'refused' : 'applied'}`, () => {
      const reason = checkVersion('version', record, hub);
      if (refused) expect(reason).toMatch(refused);
      else expect(reason).toBeUndefined();
    });
  }

  it('versionOf: 0 for no item or no attribute, undefined for a non-integer', () => {
    expect(versionOf(undefined, 'version')).toBe(0n);
    expect(versionOf(job(undefined, 'x'), 'version')).toBe(0n);
    expect(versionOf(job(41, 'x'), 'version')).toBe(41n);
    expect(versionOf({ version: { S: '1' } }, 'version')).toBeUndefined();
  });
});
