/**
 * `verify --deep` (exit 0 intact, 1 damaged, 2 could not check) and `salvage --path --out`, over a
 * store damaged as a failing card damages it; plain `verify` of a damaged store used to report
 * "0 differences" and exit 0.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { TABLE, damages, writeStore } from '../storage/fixtures/damaged-store.js';
import { run, tempDir } from './run-cli.js';

const COUNT = 1500;

function stores(): { intact: string; damaged: string } {
  const intact = join(tempDir(), 'intact');
  writeStore(intact, COUNT);
  const damaged = join(tempDir(), 'damaged');
  cpSync(intact, damaged, { recursive: true });
  damages['zeroed pages'](damaged);
  return { intact, damaged };
}

describe('verify --deep', () => {
  it('exit 0 and one line per database on an intact store; exit 1 naming the damaged database and its lost keys; exit 2 without a store', async () => {
    const { intact, damaged } = stores();
    const ok = await run(['verify', '--deep', '--path', intact]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`t/${TABLE}/p/0: ${COUNT} entries, intact\n`);
    expect(ok.out).toMatch(/^7 databases checked, 0 damaged, \d+ pages, 0 unreachable\n/m);

    const bad = await run(['verify', '--deep', '--path', damaged]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/: DAMAGED, \d+ of \d+ entries readable: page \d+ holds the number of page 0 \(overwritten or misplaced\) \(keys after .+ and before .+\)/);
    expect(bad.out).toMatch(/^7 databases checked, [1-9]\d* damaged/m);
    expect(bad.err).toMatch(/^StoreDamaged: .* is damaged; copy what can be read with `edgetable salvage/);

    const json = await run(['verify', '--deep', '--json', '--path', damaged]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ outcome: 'damaged', databases: expect.arrayContaining([expect.objectContaining({ name: '_catalog', damage: [] })]) });

    const none = join(tempDir(), 'none');
    mkdirSync(none);
    expect(await run(['verify', '--deep', '--path', none])).toMatchObject({ code: 2, err: `VerifyError: ${none} holds no store (no data.mdb)\n` });
    writeFileSync(join(none, 'data.mdb'), Buffer.alloc(100));
    expect(await run(['verify', '--deep', '--path', none])).toMatchObject({ code: 1, err: expect.stringMatching(/^StoreDamaged: .* is damaged: check store .*MDB_INVALID: File is not an LMDB file/) });
  });

  it('plain verify refuses a damaged store (CORRUPT, exit 1) instead of reporting 0 differences', async () => {
    const { damaged } = stores();
    const r = await run(['verify', '--path', damaged]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^StorageError: open store .* the store is damaged/);
  });
});

describe('salvage', () => {
  it('copies what can be read into a new store that opens, reports the lost key ranges, refuses a non-empty --out', async () => {
    const { damaged } = stores();
    const out = join(tempDir(), 'salvaged');
    const r = await run(['salvage', '--path', damaged, '--out', out]);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/ of \d+ entries copied; lost: keys after .+ and before .+ \(page \d+ holds the number of page 0/);
    expect(r.out).toMatch(/salvaged .* some entries were lost \(above\); \d+ index entries differ/);
    expect((await run(['verify', '--deep', '--path', out])).code).toBe(0);
    const db = open({ path: out, readOnly: true });
    expect(db.listTables({}).TableNames).toEqual([TABLE]);
    db.close();
    expect(await run(['salvage', '--path', damaged, '--out', out])).toMatchObject({ code: 1, err: `SalvageError: ${out} is not empty: salvage into a new or empty folder\n` });
  });

  it('an intact store is copied whole: every entry, 0 index differences', async () => {
    const { intact } = stores();
    const out = join(tempDir(), 'copy');
    const r = await run(['salvage', '--path', intact, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`t/${TABLE}/p/0: ${COUNT} entries copied\n`);
    expect(r.out).toMatch(/every entry copied; 0 index entries differ/);
    const db = open({ path: out, readOnly: true });
    expect(db.describeTable({ TableName: TABLE }).Table?.ItemCount).toBe(COUNT);
    db.close();
  });
});
