/**
 * The open-time check's rules (storage/open-check.ts, open-marks.ts): the option's values, the
 * mark an open leaves until it closes, and which marks count as an unclean shutdown.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isClean, walkDataFile } from '../../src/storage/data-file-walk.js';
import { staleOpenMarks } from '../../src/storage/open-marks.js';
import { currentBootId } from '../../src/storage/redo-log-file.js';
import { Store } from '../../src/storage/store.js';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();

describe('checkOnOpen', () => {
  it('refuses a value it does not know, before anything is opened', () => {
    const path = join(temp.dir(), 'db');
    expect(() => Store.open({ path, checkOnOpen: 'sometimes' as never })).toThrow(expect.objectContaining({ code: 'INVALID', message: `checkOnOpen "sometimes" is not one of 'unclean', 'always', 'never'` }));
    expect(existsSync(path)).toBe(false);
  });

  it("'always' on a new folder (no data file yet) opens it", () => {
    const store = temp.open({ checkOnOpen: 'always' });
    expect(store.closed).toBe(false);
  });
});

describe('open marks', () => {
  it('an open leaves open.<pid> until it closes; this process\'s own mark is never stale', () => {
    const store = temp.open();
    expect(readdirSync(store.path)).toContain(`open.${process.pid}`);
    expect(staleOpenMarks(store.path)).toEqual([]);
    store.close();
    expect(readdirSync(store.path).filter((n) => n.startsWith('open.'))).toEqual([]);
  });

  it('stale: a dead pid, a mark of another boot, a malformed name; not: a live process of this boot', () => {
    const dir = temp.dir();
    writeFileSync(join(dir, 'open.2147483646'), `${currentBootId()}\n`); // no such process
    writeFileSync(join(dir, `open.${process.ppid}`), 'another-boot\n');
    writeFileSync(join(dir, 'open.x'), '');
    expect(staleOpenMarks(dir).sort()).toEqual(['open.2147483646', `open.${process.ppid}`, 'open.x'].sort());
    writeFileSync(join(dir, `open.${process.ppid}`), `${currentBootId()}\n`);
    expect(staleOpenMarks(dir)).not.toContain(`open.${process.ppid}`);
  });
});

describe('the walk and the runs LMDB keeps', () => {
  it('a value written over a longer one keeps the longer overflow run, and the walk calls the store intact', () => {
    const path = join(temp.dir(), 'db');
    const store = temp.open({ path });
    const values = store.database('t/v');
    // 20 KB then 9 KB under one key in one txn: LMDB writes the second into the first's (still
    // dirty) 5-page run in place and keeps its length.
    store.write((txn) => {
      txn.put(values, Buffer.from('k'), Buffer.alloc(20_000, 1));
      txn.put(values, Buffer.from('k'), Buffer.alloc(9_000, 2));
    });
    store.write((txn) => txn.put(values, Buffer.from('j'), Buffer.alloc(12_000, 3)));
    store.close();
    const report = walkDataFile(path)!;
    expect(isClean(report), JSON.stringify(report, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)).slice(0, 500)).toBe(true);
  });
});
