/**
 * The layers of DESIGN.md's diagram, read from the code: every import of src/ (static, `export
 * ... from`, dynamic import(), createRequire(...)('x')) is resolved to the folder it names.
 *
 * - sync/ and hub/ reach the engine only through `Edgetable`, `db.promises` and the Replica port
 *   (replication/): never storage/, table/, stream/ or partition/.
 * - Imports point down the diagram's rows; folders of one row may import each other.
 * - Each outside library lives in one folder.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** DESIGN.md's diagram, top row first. Folders not named here (api/, observe/, ...) are not judged. */
const ROWS: readonly (readonly string[])[] = [
  ['cli', 'server', 'hub', 'bridge'],
  ['sync'],
  ['replication'],
  ['ops'],
  ['table'],
  ['indexes', 'stream', 'capacity'],
  ['expr'],
  ['partition'],
  ['storage'],
  ['codec'],
  ['model'],
];

/**
 * Upward imports the code has today, each named so it cannot spread: stream/ takes the Table
 * type (and its key and partition lookups) from table/ for the change-log writer and readers.
 * The test fails when one is no longer needed, so the list only shrinks.
 */
const KNOWN_UPWARD: readonly string[] = ['stream -> table'];

/** Where each outside library may be imported (a prefix of the module name). */
const LIBRARIES: readonly { readonly module: RegExp; readonly folders: readonly string[] }[] = [
  { module: /^node-lmdb$/, folders: ['storage'] },
  { module: /^(cbor-x|farmhash)$/, folders: ['codec'] },
  // bridge/ loads mqtt for its MQTT transport of sensor frames, beside sync/'s link.
  { module: /^mqtt$/, folders: ['sync', 'bridge'] },
  { module: /^node:https?$|^https?$/, folders: ['server'] },
];

type Import = { readonly file: string; readonly folder: string; readonly specifier: string; readonly target?: string };

const IMPORT_PATTERNS = [/\b(?:from|import)\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /\bcreateRequire\([^)]*\)\(\s*['"]([^'"]+)['"]\s*\)/g];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The folder of src/ a path lies in ('' for a file at the top of src/). */
function folderOf(file: string): string {
  const rel = path.relative(SRC, file);
  return rel.includes(path.sep) ? rel.split(path.sep)[0]! : '';
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const out: Import[] = [];
  for (const pattern of IMPORT_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const specifier = m[1]!;
      const target = specifier.startsWith('.') ? folderOf(path.resolve(path.dirname(file), specifier)) : undefined;
      out.push({ file: path.relative(SRC, file), folder: folderOf(file), specifier, ...(target !== undefined ? { target } : {}) });
    }
  }
  return out;
}

const ALL = sourceFiles(SRC).flatMap(importsOf);
const ROW_OF = new Map(ROWS.flatMap((row, i) => row.map((folder) => [folder, i] as const)));

function upward(imports: readonly Import[]): Import[] {
  return imports.filter((i) => {
    if (i.target === undefined || i.target === i.folder) return false;
    const from = ROW_OF.get(i.folder);
    const to = ROW_OF.get(i.target);
    return from !== undefined && to !== undefined && to < from;
  });
}

/** Imports of sync/ and hub/ that reach into the engine past the Replica port. */
function pastThePort(imports: readonly Import[]): Import[] {
  const forbidden = new Set(['storage', 'table', 'stream', 'partition']);
  return imports.filter((i) => (i.folder === 'sync' || i.folder === 'hub') && i.target !== undefined && forbidden.has(i.target));
}

const describeImport = (i: Import) => `${i.file} imports ${i.specifier}`;

describe('layering (DESIGN.md, "Layers")', () => {
  it('reads the imports of every layer', () => {
    // A pattern that stopped matching would make every rule below pass vacuously.
    for (const folder of ['sync', 'hub', 'replication', 'ops', 'storage']) {
      expect(ALL.filter((i) => i.folder === folder).length, folder).toBeGreaterThan(5);
    }
  });

  it('keeps sync/ and hub/ off storage/, table/, stream/ and partition/: they use Edgetable, db.promises and db.replica', () => {
    expect(pastThePort(ALL).map(describeImport)).toEqual([]);
  });

  it('keeps replication/ below sync/ and hub/: the wire formats are built on its types, never the reverse', () => {
    const offending = ALL.filter((i) => i.folder === 'replication' && (i.target === 'sync' || i.target === 'hub'));
    expect(offending.map(describeImport)).toEqual([]);
  });

  it('points every import down the diagram (folders of one row may import each other)', () => {
    const offending = upward(ALL).filter((i) => !KNOWN_UPWARD.includes(`${i.folder} -> ${i.target}`));
    expect(offending.map(describeImport)).toEqual([]);
  });

  it('still needs each known upward import (remove it from the list once the code no longer has it)', () => {
    const pairs = new Set(upward(ALL).map((i) => `${i.folder} -> ${i.target}`));
    expect(KNOWN_UPWARD.filter((pair) => !pairs.has(pair))).toEqual([]);
  });

  it('imports each outside library in its one folder', () => {
    const offending = ALL.filter((i) => i.target === undefined && LIBRARIES.some((l) => l.module.test(i.specifier) && !l.folders.includes(i.folder)));
    expect(offending.map(describeImport)).toEqual([]);
  });

  it('catches an engine import from hub/ and an upward import from storage/ (the rules are not vacuous)', () => {
    const fromHub: Import = { file: 'hub/probe.ts', folder: 'hub', specifier: '../table/table.js', target: 'table' };
    const fromStorage: Import = { file: 'storage/probe.ts', folder: 'storage', specifier: '../table/table.js', target: 'table' };
    const viaPort: Import = { file: 'hub/probe.ts', folder: 'hub', specifier: '../replication/replica.js', target: 'replication' };
    expect(pastThePort([fromHub, viaPort]).map(describeImport)).toEqual(['hub/probe.ts imports ../table/table.js']);
    expect(upward([fromStorage, viaPort]).map(describeImport)).toEqual(['storage/probe.ts imports ../table/table.js']);
  });
});
