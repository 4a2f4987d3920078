import { describe, expect, it } from 'vitest';
import type { AttributeValue } from '../../src/model/attribute-value.js';
import { TTL_MAX_PAST_SECONDS } from '../../src/model/limits.js';
import { isExpiredValue } from '../../src/ttl/expiry.js';

const NOW_MS = 1_800_000_000_000;
const NOW_S = NOW_MS / 1000;

describe('isExpiredValue (spec §6.9)', () => {
  const cases: [string, AttributeValue | undefined, boolean][] = [
    ['one second ago', { N: String(NOW_S - 1) }, true],
    ['a fraction of a second ago', { N: String(NOW_S - 0.5) }, true],
    ['now exactly (not < now)', { N: String(NOW_S) }, false],
    ['in the future', { N: String(NOW_S + 60) }, false],
    ['exactly five years ago', { N: String(NOW_S - TTL_MAX_PAST_SECONDS) }, true],
    ['more than five years ago (ignored)', { N: String(NOW_S - TTL_MAX_PAST_SECONDS - 1) }, false],
    ['milliseconds (far future, ignored)', { N: String(NOW_MS - 1000) }, false],
    ['zero (ignored)', { N: '0' }, false],
    ['a string holding a past time', { S: String(NOW_S - 10) }, false],
    ['a list', { L: [{ N: String(NOW_S - 10) }] }, false],
    ['absent', undefined, false],
  ];
  for (const [name, value, expired] of cases) {
    it(`${name}: ${expired ? 'expired' : 'kept'}`, () => expect(isExpiredValue(value, NOW_MS)).toBe(expired));
  }
});
