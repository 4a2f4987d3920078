/**
 * docs/architecture.md's map of src/ stays true: every folder of src/ is named in its "Layers"
 * diagram, and the diagram names no folder that does not exist.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const layers = /## Layers\n[\s\S]*?```\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
const folders = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
/** Folder names the diagram's left column lists: `name/` tokens before the description. */
const named = new Set([...layers.matchAll(/(?:^|\s)([a-z][a-z-]*)\/(?=\s)/gm)].map((m) => m[1]!));

describe('docs/architecture.md', () => {
  it('has a Layers diagram', () => {
    expect(layers.length).toBeGreaterThan(0);
  });

  it.each(folders)('names src/%s/ in its Layers diagram', (folder) => {
    expect(named.has(folder)).toBe(true);
  });

  it('names no folder src/ does not have', () => {
    expect([...named].filter((n) => !folders.includes(n) && n !== 'protocol')).toEqual([]);
  });
});
