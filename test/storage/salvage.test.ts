/**
 * Salvage (storage/salvage.ts) against an oracle: the intact store's entries, read by the same
 * walk before the damage. Every entry outside the key ranges the report calls lost is copied with
 * its exact bytes, nothing is copied that was not in the intact store, and the new store is
 * intact and opens.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { isClean, walkDataFile } from '../../src/storage/data-file-walk.js';
import { salvageInto } from '../../src/storage/salvage.js';
import { Store } from '../../src/storage/store.js';
import { COUNT_FOR, TABLE, damages, writeStore } from './fixtures/damaged-store.js';

type Entries = Map<string, Map<string, string>>;

function entriesOf(path: string): Entries {
  const all: Entries = new Map();
  walkDataFile(path, (db, key, value) => {
    if (db === null) return;
    if (!all.has(db)) all.set(db, new Map());
    all.get(db)!.set(key.toString('hex'), value.toString('hex'));
  });
  return all;
}

const COUNT = COUNT_FOR.salvage;
let root: string;
let intact: string;
let original: Entries;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'edgetable-salvage-'));
  intact = join(root, 'intact');
  writeStore(intact, COUNT);
  original = entriesOf(intact);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('salvageInto', () => {
  it.each(Object.keys(damages))('%s: every entry outside the reported lost ranges copied byte for byte, nothing invented', (damage) => {
    const damaged = join(root, `${damage}-damaged`);
    const out = join(root, `${damage}-out`);
    cpSync(intact, damaged, { recursive: true });
    damages[damage as keyof typeof damages](damaged);
    const target = Store.open({ path: out, checkOnOpen: 'never' });
    const report = salvageInto(damaged, target);
    target.close();
    expect(isClean(walkDataFile(damaged)!)).toBe(false);
    expect(report.databases.length).toBe(original.size);

    const salvaged = entriesOf(out);
    const outcome = walkDataFile(out)!;
    expect(isClean(outcome)).toBe(true);
    for (const [name, entries] of original) {
      const got = salvaged.get(name) ?? new Map<string, string>();
      const lost = report.databases.find((db) => db.name === name)?.lost ?? [];
      const inLostRange = (key: string): boolean => lost.some((l) => (l.after === null || Buffer.compare(Buffer.from(key, 'hex'), Buffer.from(l.after, 'hex')) > 0) && (l.before === null || Buffer.compare(Buffer.from(key, 'hex'), Buffer.from(l.before, 'hex')) < 0));
      for (const [key, value] of entries) {
        if (got.has(key)) expect(got.get(key)).toBe(value);
        else expect(inLostRange(key), `${name} ${key} missing outside every lost range`).toBe(true);
      }
      for (const key of got.keys()) expect(entries.has(key), `${name} ${key} invented`).toBe(true);
    }
    const db = open({ path: out, readOnly: true });
    expect(db.listTables({}).TableNames).toEqual([TABLE]);
    db.close();
  });
});
