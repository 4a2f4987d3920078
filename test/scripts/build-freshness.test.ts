/**
 * When scripts/build.mjs skips the build: dist/ is current when its stamp (dated at the start of
 * the last successful build) is at least as new as every input file and folder.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STAMP, staleReason } from '../../scripts/build-freshness.mjs';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const T0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** A project built at t=10 s from inputs last changed at t=0 s. */
function project(): { root: string; touch(path: string, seconds: number): void } {
  const root = mkdtempSync(join(tmpdir(), 'etb-freshness-'));
  roots.push(root);
  const touch = (path: string, seconds: number) => utimesSync(join(root, path), at(seconds), at(seconds));
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'dist'));
  for (const file of ['src/index.ts', 'src/cli/main.ts', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json', `dist/${STAMP}`]) writeFileSync(join(root, file), '');
  for (const path of ['src/index.ts', 'src/cli/main.ts', 'src/cli', 'src', 'scripts/build.mjs', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) touch(path, 0);
  touch(`dist/${STAMP}`, 10);
  return { root, touch };
}

describe('staleReason', () => {
  it('is undefined when the stamp is newer than every input (package-lock.json absent: skipped)', () => {
    expect(staleReason(project().root)).toBeUndefined();
  });

  it('is undefined for an input exactly as old as the stamp', () => {
    const p = project();
    p.touch('src/cli/main.ts', 10);
    expect(staleReason(p.root)).toBeUndefined();
  });

  it('names dist/ as never built without the stamp (a first build, or one that failed)', () => {
    const p = project();
    rmSync(join(p.root, 'dist', STAMP));
    expect(staleReason(p.root)).toBe('dist/ has not been built');
  });

  it.each(['src/cli/main.ts', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json'])('names %s, saved after the build started', (path) => {
    const p = project();
    p.touch(path, 11);
    expect(staleReason(p.root)).toBe(`${path} changed since the last build`);
  });

  it('names the newest of several changed inputs', () => {
    const p = project();
    p.touch('src/index.ts', 12);
    p.touch('src/cli/main.ts', 15);
    expect(staleReason(p.root)).toBe('src/cli/main.ts changed since the last build');
  });

  it('sees a deleted source through its folder', () => {
    const p = project();
    rmSync(join(p.root, 'src', 'cli', 'main.ts'));
    p.touch('src/cli', 11);
    expect(staleReason(p.root)).toBe('src/cli changed since the last build');
  });

  it('takes package-lock.json when it is there', () => {
    const p = project();
    writeFileSync(join(p.root, 'package-lock.json'), '');
    p.touch('package-lock.json', 20);
    expect(staleReason(p.root)).toBe('package-lock.json changed since the last build');
  });
});
