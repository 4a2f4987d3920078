/**
 * The documentation's cross references stay true: every relative link of README.md and docs/
 * names a file that exists and, with a `#anchor`, a heading of that file (GitHub's slugs); every
 * citation of a section in prose (`docs/sync.md, "Clocks"`), in the docs and in the comments of
 * src/, test/ and bench/, names a heading the page has; and docs/README.md lists every page.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'results') return [];
    return statSync(p).isDirectory() ? filesUnder(p, keep) : keep(name) ? [p] : [];
  });
}

const docs = [join(root, 'README.md'), ...filesUnder(join(root, 'docs'), (n) => n.endsWith('.md'))];

/** The text outside fenced code blocks, line for line (fenced lines blanked, so numbers stay). */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function headingsOf(file: string): string[] {
  return [...prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim());
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headingsOf(file)) {
    const slug = slugOf(h);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

type Link = { readonly from: string; readonly target: string };

function linksOf(file: string): Link[] {
  const text = prose(readFileSync(file, 'utf8')).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/i.test(t))
    .map((target) => ({ from: relative(root, file), target }));
}

/** Why a link does not hold, or undefined when it does. */
function brokenLink(link: Link): string | undefined {
  const [path, anchor] = link.target.split('#') as [string, string | undefined];
  const file = path === '' ? join(root, link.from) : resolve(dirname(join(root, link.from)), path);
  if (!existsSync(file)) return `${link.from}: ${link.target}: no such file`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md')) return `${link.from}: ${link.target}: an anchor into a file that is not markdown`;
  return anchorsOf(file).has(anchor) ? undefined : `${link.from}: ${link.target}: no heading with that anchor`;
}

/** `docs/x.md, "Section"`, `x.md "Section"` and `[x.md, "Section"](...)`: a page and a section named in prose. */
const CITATION = /((?:docs\/)?(?:decisions\/)?[a-z0-9-]+\.md)\]?,? \(?"([^"\n]{3,80})"/g;

type Citation = { readonly from: string; readonly page: string; readonly section: string };

function citationsOf(file: string, text: string): Citation[] {
  return [...text.matchAll(CITATION)].map((m) => ({ from: relative(root, file), page: m[1]!.replace(/^docs\//, ''), section: m[2]! }));
}

/** What prose may cite as a section: the headings, and the bold lead-ins of paragraphs and list items. */
function sectionsOf(file: string): string[] {
  const leads = [...prose(readFileSync(file, 'utf8')).matchAll(/^(?:- )?\*\*([^*\n]+)\*\*/gm)].map((m) => m[1]!);
  return [...headingsOf(file), ...leads].map((s) => s.toLowerCase());
}

/** Why a citation does not hold: the page is gone, or no section of it contains the name cited. */
function brokenCitation(c: Citation): string | undefined {
  const file = join(root, c.page === 'README.md' ? 'README.md' : join('docs', c.page));
  if (!existsSync(file)) return `${c.from}: ${c.page}, "${c.section}": no such page`;
  const name = c.section.toLowerCase();
  return sectionsOf(file).some((s) => s.includes(name)) ? undefined : `${c.from}: ${c.page}, "${c.section}": no such section`;
}

const sources = ['src', 'test', 'bench'].flatMap((d) => filesUnder(join(root, d), (n) => n.endsWith('.ts')));

describe('documentation links', () => {
  it('finds the links and citations it checks', () => {
    // A pattern that stopped matching would make every check below pass vacuously.
    expect(docs.flatMap(linksOf).length).toBeGreaterThan(100);
    expect(sources.flatMap((f) => citationsOf(f, readFileSync(f, 'utf8'))).length).toBeGreaterThan(20);
  });

  it('computes anchors as GitHub does', () => {
    expect(slugOf('Down: hub to devices (two-way sync)')).toBe('down-hub-to-devices-two-way-sync');
    expect(slugOf('6. When the card is full')).toBe('6-when-the-card-is-full');
    expect(slugOf("Batches the hub cannot apply: refused, kept, acknowledged")).toBe('batches-the-hub-cannot-apply-refused-kept-acknowledged');
  });

  it('resolves every relative link of README.md and docs/ to a file and heading', () => {
    expect(docs.flatMap(linksOf).map(brokenLink).filter((b) => b !== undefined)).toEqual([]);
  });

  it('names existing sections wherever the docs or the code cite one', () => {
    const cited = [
      ...docs.flatMap((f) => citationsOf(f, prose(readFileSync(f, 'utf8')))),
      ...sources.filter((f) => !f.endsWith('docs-links.test.ts')).flatMap((f) => citationsOf(f, readFileSync(f, 'utf8'))),
    ];
    expect(cited.map(brokenCitation).filter((b) => b !== undefined)).toEqual([]);
  });

  it('lists every page of docs/ in the docs index', () => {
    const index = readFileSync(join(root, 'docs', 'README.md'), 'utf8');
    const pages = filesUnder(join(root, 'docs'), (n) => n.endsWith('.md'))
      .map((f) => relative(join(root, 'docs'), f))
      .filter((p) => p !== 'README.md');
    expect(pages.filter((p) => !index.includes(`](${p})`) && !index.includes(`](${p}#`))).toEqual([]);
  });
});
