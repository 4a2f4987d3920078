/**
 * The power-cut harness's own model (harness/power-cut.ts, harness/powercut-shim.c): what a folder
 * holds after a cut, from the files at the cycle's start and the journal. Flushes are per file; a
 * name change (creating, unlinking, renaming a file) needs a flush of the folder. Then the shim on
 * a real process: it journals node's own file calls (O_APPEND included) at the offsets they really
 * landed at, and only for the folder's files.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPowerCutShim, parseJournal, rebuildFolder, shimEnvironment, snapshotFolder, writeFolder, type FolderFiles, type JournalRecord } from './harness/power-cut.js';
import { createRng } from './harness/rng.js';

const text = (files: FolderFiles): Record<string, string> => Object.fromEntries([...files].map(([name, content]) => [name, content.toString('latin1')]));
const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');
const rebuild = (before: Record<string, string>, records: JournalRecord[], mode: 'last-flush' | 'reorder' = 'last-flush') =>
  text(rebuildFolder(new Map(Object.entries(before).map(([k, v]) => [k, bytes(v)])), records, mode, createRng(1)).files);

describe('rebuildFolder: what a folder holds after a cut', () => {
  // Records as the shim numbers them: every record takes the next seq.
  const open = (seq: number, file: number, name: string, created = false): JournalRecord => ({ kind: 'O', seq, file, created, name });
  const write = (seq: number, file: number, offset: number, data: string): JournalRecord => ({ kind: 'W', seq, file, offset, data: bytes(data) });

  it("flushes are per file: of two files written, only the flushed one's writes survive ('last-flush')", () => {
    const records = [open(0, 0, 'a'), open(1, 1, 'b'), write(2, 0, 4, 'AA'), write(3, 1, 4, 'BB'), { kind: 'F', covers: 4, file: 0 } as const, write(5, 0, 0, 'aa')];
    expect(rebuild({ a: 'a...', b: 'b...' }, records)).toEqual({ a: 'a...AA', b: 'b...' });
  });

  it('a flush covers the writes before it of every descriptor on the same file, and a sync covers everything', () => {
    const records = [open(0, 0, 'a'), open(1, 1, 'a'), write(2, 0, 0, 'x'), write(3, 1, 1, 'y'), { kind: 'F', covers: 4, file: 1 } as const, open(5, 2, 'b'), write(6, 2, 0, 'z')];
    expect(rebuild({ a: '..', b: '.' }, records)).toEqual({ a: 'xy', b: '.' });
    expect(rebuild({ a: '..', b: '.' }, [...records, { kind: 'A', covers: 7 }])).toEqual({ a: 'xy', b: 'z' });
  });

  it('writes on an O_SYNC/O_DSYNC descriptor survive unflushed; unflushed truncates do not', () => {
    const records: JournalRecord[] = [open(0, 0, 'a'), { kind: 'S', seq: 1, file: 0, offset: 0, data: bytes('s') }, { kind: 'T', seq: 2, file: 0, length: 1 }];
    expect(rebuild({ a: '.bc' }, records)).toEqual({ a: 'sbc' });
  });

  it('a file created without a flush of the folder is absent after the cut, even when the file itself was flushed', () => {
    const records: JournalRecord[] = [open(0, 0, 'new', true), write(1, 0, 0, 'log'), { kind: 'F', covers: 2, file: 0 }];
    expect(rebuild({ a: 'x' }, records)).toEqual({ a: 'x' });
    expect(rebuild({ a: 'x' }, [...records, { kind: 'D', covers: 3 }])).toEqual({ a: 'x', new: 'log' });
    // The folder flushed before the file's data: the file is there, its unflushed writes are not.
    expect(rebuild({ a: 'x' }, [open(0, 0, 'new', true), { kind: 'D', covers: 1 }, write(2, 0, 0, 'log')])).toEqual({ a: 'x', new: '' });
  });

  it('unlinks and renames take effect only when the folder was flushed after them', () => {
    const records: JournalRecord[] = [{ kind: 'U', seq: 0, name: 'a' }, { kind: 'R', seq: 1, from: 'b', to: 'c' }];
    expect(rebuild({ a: '1', b: '2' }, records)).toEqual({ a: '1', b: '2' });
    expect(rebuild({ a: '1', b: '2' }, [...records, { kind: 'D', covers: 1 }])).toEqual({ b: '2' });
    expect(rebuild({ a: '1', b: '2' }, [...records, { kind: 'D', covers: 2 }])).toEqual({ c: '2' });
  });

  it('a hard link gives a file a second name, durable like a create; writes through either name reach the one file', () => {
    const records: JournalRecord[] = [{ kind: 'L', seq: 0, from: 'tmp', to: 'claim' }, { kind: 'U', seq: 1, name: 'tmp' }, open(2, 0, 'claim'), write(3, 0, 0, 'X'), { kind: 'F', covers: 4, file: 0 }];
    expect(rebuild({ tmp: 'pid' }, records)).toEqual({ tmp: 'Xid' });
    expect(rebuild({ tmp: 'pid' }, [...records, { kind: 'D', covers: 1 }])).toEqual({ tmp: 'Xid', claim: 'Xid' });
    expect(rebuild({ tmp: 'pid' }, [...records, { kind: 'D', covers: 2 }])).toEqual({ claim: 'Xid' });
  });

  it("'reorder' keeps a prefix of the unflushed name changes, never a later one without an earlier one", () => {
    const records: JournalRecord[] = [{ kind: 'R', seq: 0, from: 'a', to: 'b' }, { kind: 'R', seq: 1, from: 'b', to: 'c' }];
    const seen = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const files = rebuildFolder(new Map([['a', bytes('1')]]), records, 'reorder', createRng(seed)).files;
      seen.add([...files.keys()].join());
    }
    expect([...seen].sort()).toEqual(['a', 'b', 'c']);
  });

  it('refuses a journal that opens a file the snapshot lacks (the harness must not guess)', () => {
    expect(() => rebuild({}, [open(0, 0, 'data.mdb')])).toThrow(/not in the folder/);
  });
});

describe('powercut-shim on a real process', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("journals node's fs calls on the folder's files only, at the offsets they landed at", () => {
    const root = mkdtempSync(join(tmpdir(), 'edgetable-shim-'));
    dirs.push(root);
    const folder = join(root, 'db');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    writeFileSync(join(folder, 'log'), 'start;');
    writeFileSync(join(folder, 'gone'), 'old');
    writeFileSync(join(folder, 'slots'), 'slot0slot1');
    writeFileSync(join(folder, 'lock.mdb'), 'lock');
    const before = snapshotFolder(folder);
    expect([...before.keys()].sort()).toEqual(['gone', 'log', 'slots']);
    const script = `
      const fs = require('node:fs'), p = (n) => ${JSON.stringify(folder)} + '/' + n;
      const log = fs.openSync(p('log'), 'a');
      fs.writeSync(log, 'flushed;');
      fs.fdatasyncSync(log);
      fs.writeSync(log, Buffer.from('pwrite-appends;'), 0, 15, 0); // O_APPEND: lands at the end
      const made = fs.openSync(p('made'), 'w');
      fs.writeSync(made, 'made');
      fs.fsyncSync(made);
      const kept = fs.openSync(p('kept'), 'w+');
      fs.writeSync(kept, 'kept');
      fs.fdatasyncSync(kept);
      const dir = fs.openSync(${JSON.stringify(folder)}, 'r');
      fs.fsyncSync(dir);
      fs.closeSync(made);
      fs.unlinkSync(p('gone'));
      fs.renameSync(p('kept'), p('moved'));
      const late = fs.openSync(p('late'), 'w');
      fs.writeSync(late, 'late');
      fs.fdatasyncSync(late);
      fs.linkSync(p('late'), p('twin'));
      fs.writeFileSync(p('lock.mdb'), 'not watched');
      fs.writeFileSync(p('sub/data.mdb'), 'not watched');
      fs.writeSync(log, 'tail;');
      fs.ftruncateSync(log, 6); // unflushed: the cut keeps the log's flushed length
      const slots = fs.openSync(p('slots'), 'r+');
      fs.writeSync(slots, Buffer.from('SLOT1'), 0, 5, 5);
      fs.fdatasyncSync(slots);
      fs.writeSync(slots, Buffer.from('SLOT0'), 0, 5, 0);
    `;
    const journal = join(root, 'journal');
    execFileSync(process.execPath, ['-e', script], { env: shimEnvironment(buildPowerCutShim(), folder, journal, { mode: 'last-flush' }) });
    const records = parseJournal(readFileSync(journal));
    expect(records.filter((r) => r.kind === 'O').map((r) => r.kind === 'O' && `${r.name}${r.created ? ' created' : ''}`)).toEqual(['log', 'made created', 'kept created', 'late created', 'slots']);

    // With every record made durable, the rebuild is the folder as the process left it.
    const everything = rebuildFolder(before, [...records, { kind: 'A', covers: Number.MAX_SAFE_INTEGER }], 'last-flush', createRng(1)).files;
    expect(text(everything)).toEqual(text(snapshotFolder(folder)));
    expect(text(everything)).toMatchObject({ log: 'start;', slots: 'SLOT0SLOT1', moved: 'kept', late: 'late', twin: 'late' });

    // After a cut: the log keeps its flushed append only; the files created and flushed before the
    // folder flush are there; the unlink, the rename, 'late' (flushed, the folder not) and its link are lost.
    const cut = rebuildFolder(before, records, 'last-flush', createRng(1)).files;
    expect(text(cut)).toEqual({ log: 'start;flushed;', made: 'made', kept: 'kept', gone: 'old', slots: 'slot0SLOT1' });
    writeFolder(folder, cut);
    expect(text(snapshotFolder(folder))).toEqual(text(cut));
    expect(readFileSync(join(folder, 'lock.mdb'), 'utf8')).toBe('not watched');
  });

  it('aborts a process that links a file from outside the folder into it (the model cannot say what that file held)', () => {
    const root = mkdtempSync(join(tmpdir(), 'edgetable-shim-'));
    dirs.push(root);
    const folder = join(root, 'db');
    mkdirSync(folder);
    writeFileSync(join(root, 'outside'), 'x');
    const script = `require('node:fs').linkSync(${JSON.stringify(join(root, 'outside'))}, ${JSON.stringify(join(folder, 'inside'))})`;
    const run = () => execFileSync(process.execPath, ['-e', script], { env: shimEnvironment(buildPowerCutShim(), folder, join(root, 'journal'), { mode: 'last-flush' }), stdio: 'pipe' });
    expect(run).toThrow(/outside the model, aborting: a hard link into the folder from outside it/);
  });
});
