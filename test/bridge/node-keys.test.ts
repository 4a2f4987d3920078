import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadNodeKeys, NodeKeysError, parseNodeKeys } from '../../src/bridge/node-keys.js';
import { tempDir } from './fixtures/helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('the keys file', () => {
  it('maps each device id to its key bytes; comments and blank lines are skipped', () => {
    const keys = parseNodeKeys(['# fleet', '', 'a 000102030405060708090A0B0C0D0E0F', `b:2\t${'ff'.repeat(32)} # 32 bytes`, '   '].join('\n'));
    expect([...keys.keys()]).toEqual(['a', 'b:2']);
    expect([...keys.get('a')!]).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(keys.get('b:2')).toHaveLength(32);
  });

  it.each([
    ['a 00', /f:1: the key of a must be 32\.\.64 hex digits/],
    [`a ${'0'.repeat(31)}`, /32\.\.64 hex digits/],
    [`a ${'00'.repeat(33)}`, /32\.\.64 hex digits/],
    [`a ${'0g'.repeat(16)}`, /32\.\.64 hex digits/],
    [`a b ${'00'.repeat(16)}`, /f:1: expected "<device-id> <hex key>"/],
    [`${'x'.repeat(33)} ${'00'.repeat(16)}`, /is not \[A-Za-z0-9\._:-\]\{1,32\}/],
    [`a ${'00'.repeat(16)}\n\na ${'11'.repeat(16)}`, /f:3: device id a appears twice/],
  ])('refuses %j', (text, message) => {
    expect(() => parseNodeKeys(text, 'f')).toThrow(NodeKeysError);
    expect(() => parseNodeKeys(text, 'f')).toThrow(message);
  });

  it('warns when others may read the file', () => {
    const dir = tempDir('etb-keys-');
    cleanups.push(dir.cleanup);
    const file = join(dir.path, 'keys');
    const warnings: string[] = [];
    writeFileSync(file, `n1 ${'00'.repeat(16)}\n`, { mode: 0o600 });
    expect(loadNodeKeys(file, (l) => warnings.push(l)).size).toBe(1);
    expect(warnings).toEqual([]);
    chmodSync(file, 0o644);
    loadNodeKeys(join(dir.path, 'keys'), (l) => warnings.push(l));
    expect(warnings.join('')).toMatch(/can be read by other users \(chmod 600 it\)/);
  });
});
