/**
 * docs/architecture.md's map of src/ stays true: every folder of src/ is named in its "Layers"
 * diagram, and the diagram names no folder (nor, in an indented row, subfolder) that does not exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const layers = /## Layers\n[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
const folders = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

/**
 * The folders the diagram's left column (up to the description, column 30) lists: `name/` tokens;
 * an indented row names subfolders of the last folder of the row above it that was not indented.
 */
function namedFolders(diagram: string): string[] {
  const named: string[] = [];
  let parent = '';
  for (const line of diagram.split('\n')) {
    const column = line.slice(0, 30);
    const names = [...column.matchAll(/([a-z][a-z-]*)\/(?=\s|$)/g)].map((m) => m[1]!);
    if (names.length === 0 || /^\s+[^a-z\s]/.test(column)) continue; // a note between the rows
    if (/^\s/.test(column)) named.push(...names.map((n) => `${parent}/${n}`));
    else {
      named.push(...names);
      parent = names[names.length - 1]!;
    }
  }
  return named;
}
const named = namedFolders(layers);

describe('docs/architecture.md', () => {
  it('has a Layers diagram', () => {
    expect(layers.length).toBeGreaterThan(0);
  });

  it.each(folders)('names src/%s/ in its Layers diagram', (folder) => {
    expect(named).toContain(folder);
  });

  it('names no folder src/ does not have', () => {
    expect(named.filter((n) => !existsSync(join(root, 'src', n)))).toEqual([]);
  });
});
