import { describe, expect, it } from 'vitest';
import { parseTableFlag, parseTablesJson } from '../../src/cli/sync-tables.js';

describe('sync --table and --tables', () => {
  it('reads Name, Name:direction and Name:direction:keys', () => {
    expect(parseTableFlag('Readings')).toBe('Readings');
    expect(parseTableFlag('WorkOrders:both')).toEqual({ name: 'WorkOrders', direction: 'both' });
    expect(parseTableFlag('WorkOrders:both:site-7,site-9')).toEqual({ name: 'WorkOrders', direction: 'both', partitionKeys: ['site-7', 'site-9'] });
  });

  it('refuses an unknown direction, empty keys and extra parts, saying which', () => {
    expect(() => parseTableFlag('WorkOrders:sideways')).toThrow(/direction must be up, down or both, not sideways/);
    expect(() => parseTableFlag('WorkOrders:down:a,,b')).toThrow(/empty partition key value/);
    expect(() => parseTableFlag('A:down:x:y')).toThrow(/expected Name/);
  });

  it('reads the JSON form, binary keys as {"B": base64}', () => {
    const tables = parseTablesJson('["Readings", {"name": "WorkOrders", "direction": "down", "partitionKeys": ["site-7", 42, {"B": "AAEC"}]}]');
    expect(tables[0]).toBe('Readings');
    expect(tables[1]).toEqual({ name: 'WorkOrders', direction: 'down', partitionKeys: ['site-7', 42, Uint8Array.from([0, 1, 2])] });
    expect(() => parseTablesJson('{"name": "x"}')).toThrow(/must be a JSON array/);
    expect(() => parseTablesJson('[{"name": "x", "partitionKeys": [true]}]')).toThrow(/must be a string, a number or \{"B": base64\}/);
  });

  it('passes a table\'s conflict rule through, as startSync takes it', () => {
    const tables = parseTablesJson('[{"name": "WorkOrders", "direction": "both", "conflict": {"strategy": "version", "attribute": "version"}}, "Readings"]');
    expect(tables).toEqual([{ name: 'WorkOrders', direction: 'both', conflict: { strategy: 'version', attribute: 'version' } }, 'Readings']);
  });
});
