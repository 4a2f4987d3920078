/**
 * The page walk (storage/page-walk.ts) over hand-built pages: what it accepts and each damage it
 * names, with the keys that bound what was lost. Pages follow LMDB's 64-bit layout.
 */
import { describe, expect, it } from 'vitest';
import { walkStore, type DbRecord, type PageSource } from '../../src/storage/page-walk.js';

const PAGE = 4096;
const NO_ROOT = 0xffffffffffffffffn;

type Node = { key: string; value?: string; child?: number };

/** A branch (nodes with `child`) or leaf page numbered `pgno` holding `nodes` in order. */
function page(pgno: number, nodes: Node[], flags = nodes[0]?.child === undefined ? 0x02 : 0x01): Buffer {
  const p = Buffer.alloc(PAGE);
  p.writeBigUInt64LE(BigInt(pgno), 0);
  p.writeUInt16LE(flags, 10);
  let upper = PAGE;
  nodes.forEach((node, i) => {
    const key = Buffer.from(node.key);
    const data = Buffer.from(node.value ?? '');
    const size = 8 + key.length + (node.child === undefined ? data.length : 0);
    upper -= size + (size % 2);
    if (node.child === undefined) {
      p.writeUInt16LE(data.length & 0xffff, upper);
      p.writeUInt16LE(data.length >>> 16, upper + 2);
    } else {
      p.writeUInt16LE(node.child & 0xffff, upper);
      p.writeUInt16LE(node.child >>> 16, upper + 2);
    }
    p.writeUInt16LE(key.length, upper + 6);
    key.copy(p, upper + 8);
    if (node.child === undefined) data.copy(p, upper + 8 + key.length);
    p.writeUInt16LE(upper, 16 + 2 * i);
  });
  p.writeUInt16LE(16 + 2 * nodes.length, 12);
  p.writeUInt16LE(upper, 14);
  return p;
}

function source(pages: Map<number, Buffer>, lastPage: number): PageSource {
  return { pageSize: PAGE, lastPage, read: (pgno) => pages.get(pgno) ?? (pgno <= lastPage ? Buffer.alloc(PAGE) : null) };
}

const record = (root: number | bigint, depth: number, entries: number, counts: { branch?: number; leaf?: number } = {}): DbRecord => ({
  flags: 0,
  depth,
  branchPages: BigInt(counts.branch ?? 0),
  leafPages: BigInt(counts.leaf ?? 1),
  overflowPages: 0n,
  entries: BigInt(entries),
  root: BigInt(root),
});
const emptyFree = record(NO_ROOT, 0, 0, { leaf: 0 });

/** A main database of one tree: root branch 2 over leaves 3 and 4. */
function twoLevel(leaf4: Buffer = page(4, [{ key: 'm', value: '3' }, { key: 'z', value: '4' }])): Map<number, Buffer> {
  return new Map([
    [2, page(2, [{ key: '', child: 3 }, { key: 'm', child: 4 }])],
    [3, page(3, [{ key: 'a', value: '1' }, { key: 'b', value: '2' }])],
    [4, leaf4],
  ]);
}
const twoLevelRecord = record(2, 2, 4, { branch: 1, leaf: 2 });

describe('walkStore', () => {
  it('an intact tree: every entry visited in key order, counts agree, every page reached', () => {
    const seen: string[] = [];
    const report = walkStore(source(twoLevel(), 4), { free: emptyFree, main: twoLevelRecord, txnId: 7n }, (_, key, value) => seen.push(`${key}=${value}`));
    expect(seen).toEqual(['a=1', 'b=2', 'm=3', 'z=4']);
    expect(report.databases.map((db) => db.damage)).toEqual([[], []]);
    expect(report.unreachablePages).toBe(0);
  });

  it.each([
    ['a zeroed leaf', page(0, []).fill(0), /page 4 holds the number of page 0/],
    ['a leaf whose node points past the page', (() => { const p = page(4, [{ key: 'm', value: '3' }]); p.writeUInt16LE(PAGE - 2, 16); return p; })(), /page 4: node 0 at offset 4094 is outside the page's node area/],
    ['a leaf with keys out of order', page(4, [{ key: 'z', value: '3' }, { key: 'n', value: '4' }]), /page 4: keys out of order at node 1/],
    ['a leaf with a key below its parent\'s bound', page(4, [{ key: 'c', value: '3' }]), /page 4: key of node 0 is outside its parent's bounds/],
    ['a branch where a leaf belongs', page(4, [{ key: '', child: 3 }, { key: 'x', child: 3 }]), /page 4 is not a leaf page/],
  ])('%s: named, the entries under it lost between the keys read around it', (_, leaf4, problem) => {
    const seen: string[] = [];
    const report = walkStore(source(twoLevel(leaf4), 4), { free: emptyFree, main: twoLevelRecord, txnId: 7n }, (_db, key) => seen.push(String(key)));
    expect(seen).toEqual(['a', 'b']);
    const damage = report.databases[0]!.damage;
    expect(damage).toHaveLength(1);
    expect(damage[0]!.problem).toMatch(problem);
    expect(String(damage[0]!.after)).toBe('b');
    expect(damage[0]!.before).toBeNull();
  });

  it('a branch that points back at itself is reached twice, not walked for ever', () => {
    const pages = twoLevel();
    pages.set(2, page(2, [{ key: '', child: 3 }, { key: 'm', child: 2 }]));
    const report = walkStore(source(pages, 4), { free: emptyFree, main: twoLevelRecord, txnId: 7n });
    expect(report.databases[0]!.damage.map((d) => d.problem)).toEqual([expect.stringMatching(/tree deeper than its recorded depth|page 2 is reached twice/)]);
  });

  it('a child page number outside the file, and counts that disagree with the record', () => {
    const pages = twoLevel();
    pages.set(2, page(2, [{ key: '', child: 3 }, { key: 'm', child: 99 }]));
    const outside = walkStore(source(pages, 4), { free: emptyFree, main: twoLevelRecord, txnId: 7n });
    expect(outside.databases[0]!.damage[0]!.problem).toBe("page number 99 is outside the file's pages 2..4");
    const miscounted = walkStore(source(twoLevel(), 4), { free: emptyFree, main: { ...twoLevelRecord, entries: 5n }, txnId: 7n });
    expect(miscounted.databases[0]!.damage[0]!.problem).toBe('4 entries found, 5 counted');
  });

  it('a page in no tree and no free list is counted unreachable, not damage', () => {
    const report = walkStore(source(twoLevel(), 6), { free: emptyFree, main: twoLevelRecord, txnId: 7n });
    expect(report.unreachablePages).toBe(2);
    expect(report.databases.every((db) => db.damage.length === 0)).toBe(true);
  });
});
