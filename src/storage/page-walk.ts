/**
 * A structural walk of an LMDB data file read with pread (never through the memory map), so that
 * no damage can crash the process that walks it: every page number, offset and size is checked
 * before it is used. LMDB keeps no checksums and trusts every pointer it follows; a damaged page
 * makes it read outside the map (SIGSEGV, SIGBUS) or return garbage. This walk is what decides
 * whether a file is safe to hand to LMDB (store-check.ts) and what salvage can still read.
 *
 * Layout (mdb.c 0.9, 64-bit hosts; PAGEBASE 0): a page starts with a 16-byte header: mp_pgno (8,
 * the page's own number), mp_pad (2), mp_flags (2), then mp_lower, mp_upper (2 each) or, for an
 * overflow page, mp_pages (4). Branch and leaf pages hold (mp_lower - 16) / 2 node offsets
 * (mp_ptrs, from the page's start) after the header; a node is lo (2), hi (2), flags (2), ksize
 * (2), then the key, then on a leaf the value (size lo | hi << 16) or with F_BIGDATA the 8-byte
 * number of its first overflow page, or with F_SUBDATA a 48-byte MDB_db. A branch node's child is
 * lo | hi << 16 | flags << 32; its first key is empty. MDB_db: pad (4), flags (2), depth (2),
 * branch, leaf and overflow page counts, entries, root (8 each; root ~0 when empty). The free
 * database (integer keys: txn ids) holds values that are lists of free page numbers: a count,
 * then the numbers (8 bytes each). Every page after the two meta pages up to the meta page's last
 * page is reachable exactly once: in one tree, or in a free list.
 *
 * What it proves: every tree's pages are where their parents say, of the right kind and depth,
 * with nodes inside their page, keys in order and inside their parent's bounds, overflow runs in
 * the file, and the counts in each MDB_db match. What it cannot prove: that a value's bytes are
 * the ones written (LMDB stores no checksum; docs/decisions/010-page-checksums.md).
 */
import { StorageError } from './storage-error.js';

const HEADER_BYTES = 16;
const NODE_BYTES = 8;
const DB_RECORD_BYTES = 48;
const P_BRANCH = 0x01;
const P_LEAF = 0x02;
const P_OVERFLOW = 0x04;
const P_LEAF2 = 0x20;
const P_SUBP = 0x40;
const PAGE_KINDS = P_BRANCH | P_LEAF | P_OVERFLOW | 0x08 | P_LEAF2 | P_SUBP;
const F_BIGDATA = 0x01;
const F_SUBDATA = 0x02;
const F_DUPDATA = 0x04;
const MDB_INTEGERKEY = 0x08;
const MDB_DUPSORT = 0x04;
const NO_ROOT = 0xffffffffffffffffn;
/** Deeper than any real tree (4 KiB pages, 511-byte keys): a cycle or damage. */
const MAX_DEPTH = 64;

/** Pages of one data file, read by number; null past the end of the file. */
export interface PageSource {
  readonly pageSize: number;
  /** The last page of the snapshot walked (its meta page's mm_last_pg). */
  readonly lastPage: number;
  read(pgno: number, count?: number): Buffer | null;
}

/** A database's MDB_db record, as its parent (the meta page or the main database) holds it. */
export interface DbRecord {
  readonly flags: number;
  readonly depth: number;
  readonly branchPages: bigint;
  readonly leafPages: bigint;
  readonly overflowPages: bigint;
  readonly entries: bigint;
  readonly root: bigint;
}

/**
 * Where a database is damaged: the page, what is wrong with it, and the keys that bound what was
 * not read (the last key read before it and the first key read after it; null: the tree's end).
 */
export interface Damage {
  readonly page: number | null;
  readonly problem: string;
  readonly after: Buffer | null;
  readonly before: Buffer | null;
}

export interface DatabaseWalk {
  /** null: the main database; '' never (LMDB's FREE_DBI is reported as '<free pages>'). */
  readonly name: string | null;
  readonly entries: number;
  readonly expectedEntries: number;
  readonly damage: Damage[];
}

export interface WalkReport {
  readonly pageSize: number;
  readonly lastPage: number;
  readonly txnId: bigint;
  readonly databases: DatabaseWalk[];
  /** Pages neither in a tree nor in a free list (leaked, or under a damaged page). */
  readonly unreachablePages: number;
}

/** What the walk hands on for every entry it can read (salvage): `database` null is the main one; key and value are views valid during the call. */
export type EntryVisitor = (database: string | null, key: Buffer, value: Buffer) => void;

export function parseDbRecord(bytes: Buffer, at = 0): DbRecord {
  return {
    flags: bytes.readUInt16LE(at + 4),
    depth: bytes.readUInt16LE(at + 6),
    branchPages: bytes.readBigUInt64LE(at + 8),
    leafPages: bytes.readBigUInt64LE(at + 16),
    overflowPages: bytes.readBigUInt64LE(at + 24),
    entries: bytes.readBigUInt64LE(at + 32),
    root: bytes.readBigUInt64LE(at + 40),
  };
}

const compareBytes = (a: Buffer, b: Buffer): number => Buffer.compare(a, b);
const compareIntegers = (a: Buffer, b: Buffer): number => {
  if (a.length !== 8 || b.length !== 8) return compareBytes(a, b);
  const x = a.readBigUInt64LE(0);
  const y = b.readBigUInt64LE(0);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Thrown inside one page's check; caught by the walk, which records it and goes on with the siblings. */
class PageDamage extends Error {}

/** One tree's walk state. */
class TreeWalk {
  entries = 0;
  branchPages = 0n;
  leafPages = 0n;
  overflowPages = 0n;
  readonly damage: Damage[] = [];
  /** The last key read (for the bounds of the next damage). */
  private lastKey: Buffer | null = null;
  private pendingDamage: { page: number | null; problem: string; after: Buffer | null }[] = [];
  private readonly compare: (a: Buffer, b: Buffer) => number;

  constructor(
    private readonly source: PageSource,
    private readonly seen: Uint8Array,
    private readonly record: DbRecord,
    private readonly onEntry: ((key: Buffer, value: Buffer, flags: number) => void) | null,
  ) {
    this.compare = (record.flags & MDB_INTEGERKEY) !== 0 ? compareIntegers : compareBytes;
  }

  run(): void {
    if ((this.record.flags & MDB_DUPSORT) !== 0) throw new StorageError('INVALID', 'databases with duplicate keys (MDB_DUPSORT) are not checked here');
    if (this.record.root === NO_ROOT) {
      if (this.record.entries !== 0n) this.noteDamage(null, `no root page, but ${this.record.entries} entries counted`);
      return;
    }
    this.visit(this.record.root, 1, null, null);
    this.flushDamage(null);
    const counts: [string, bigint, bigint][] = [
      ['entries', BigInt(this.entries), this.record.entries],
      ['branch pages', this.branchPages, this.record.branchPages],
      ['leaf pages', this.leafPages, this.record.leafPages],
      ['overflow pages', this.overflowPages, this.record.overflowPages],
    ];
    if (this.damage.length === 0) {
      for (const [what, found, counted] of counts) if (found !== counted) this.damage.push({ page: null, problem: `${found} ${what} found, ${counted} counted`, after: null, before: null });
    }
  }

  private noteDamage(page: number | null, problem: string): void {
    this.pendingDamage.push({ page, problem, after: this.lastKey });
  }

  /** Damage is bounded by the next key read after it: recorded once that key is known. */
  private flushDamage(before: Buffer | null): void {
    for (const d of this.pendingDamage) this.damage.push({ ...d, before });
    this.pendingDamage = [];
  }

  private claim(pgno: bigint, count = 1): number {
    if (pgno < 2n || pgno + BigInt(count) - 1n > BigInt(this.source.lastPage)) throw new PageDamage(`page number ${pgno} is outside the file's pages 2..${this.source.lastPage}`);
    const n = Number(pgno);
    for (let i = n; i < n + count; i++) {
      if (this.seen[i] !== 0) throw new PageDamage(`page ${i} is reached twice`);
    }
    for (let i = n; i < n + count; i++) this.seen[i] = 1;
    return n;
  }

  private visit(pgno: bigint, depth: number, low: Buffer | null, high: Buffer | null): void {
    let page: Buffer;
    let n: number;
    try {
      if (depth > MAX_DEPTH || depth > this.record.depth) throw new PageDamage(`tree deeper than its recorded depth ${this.record.depth}`);
      n = this.claim(pgno);
      const read = this.source.read(n);
      if (read === null) throw new PageDamage(`page ${n} is past the end of the file`);
      page = read;
      checkHeader(page, n, this.source.pageSize, depth === this.record.depth ? P_LEAF : P_BRANCH);
    } catch (err) {
      if (!(err instanceof PageDamage)) throw err;
      this.noteDamage(Number(pgno), err.message);
      return;
    }
    const leaf = depth === this.record.depth;
    const count = (page.readUInt16LE(12) - HEADER_BYTES) >> 1;
    // Nodes first (a page damaged in its middle is refused whole: its keys cannot be trusted).
    const nodes: { key: Buffer; flags: number; lo: number; hi: number; dataAt: number }[] = [];
    try {
      const upper = page.readUInt16LE(14);
      let previous: Buffer | null = null;
      for (let i = 0; i < count; i++) {
        const at = page.readUInt16LE(HEADER_BYTES + 2 * i);
        if (at < upper || at % 2 !== 0 || at + NODE_BYTES > page.length) throw new PageDamage(`page ${n}: node ${i} at offset ${at} is outside the page's node area`);
        const ksize = page.readUInt16LE(at + 6);
        const dataAt = at + NODE_BYTES + ksize;
        if (dataAt > page.length) throw new PageDamage(`page ${n}: node ${i}'s ${ksize}-byte key runs past the page`);
        const key = page.subarray(at + NODE_BYTES, dataAt); // each page is its own buffer: keys stay valid
        if (!leaf && i === 0) {
          if (ksize !== 0) throw new PageDamage(`page ${n}: a branch page's first key is not empty`);
        } else {
          if (previous !== null && this.compare(previous, key) >= 0) throw new PageDamage(`page ${n}: keys out of order at node ${i}`);
          if ((low !== null && this.compare(key, low) < 0) || (high !== null && this.compare(key, high) >= 0)) throw new PageDamage(`page ${n}: key of node ${i} is outside its parent's bounds`);
          previous = key;
        }
        nodes.push({ key, flags: page.readUInt16LE(at + 4), lo: page.readUInt16LE(at), hi: page.readUInt16LE(at + 2), dataAt });
      }
    } catch (err) {
      if (!(err instanceof PageDamage)) throw err;
      this.noteDamage(n, err.message);
      return;
    }
    if (leaf) {
      this.leafPages += 1n;
      for (let i = 0; i < nodes.length; i++) this.leafEntry(page, n, i, nodes[i]!);
      return;
    }
    this.branchPages += 1n;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const child = BigInt(node.lo) | (BigInt(node.hi) << 16n) | (BigInt(node.flags) << 32n);
      this.visit(child, depth + 1, i === 0 ? low : node.key, i + 1 < nodes.length ? nodes[i + 1]!.key : high);
    }
  }

  private leafEntry(page: Buffer, n: number, i: number, node: { key: Buffer; flags: number; lo: number; hi: number; dataAt: number }): void {
    const size = node.lo | (node.hi << 16);
    let value: Buffer;
    try {
      if ((node.flags & ~(F_BIGDATA | F_SUBDATA)) !== 0 || (node.flags & F_DUPDATA) !== 0) throw new PageDamage(`page ${n}: node ${i} has flags 0x${node.flags.toString(16)}`);
      if ((node.flags & F_BIGDATA) !== 0) {
        if (node.dataAt + 8 > page.length) throw new PageDamage(`page ${n}: node ${i}'s overflow page number runs past the page`);
        value = this.overflowValue(page.readBigUInt64LE(node.dataAt), size);
      } else {
        if (node.dataAt + size > page.length) throw new PageDamage(`page ${n}: node ${i}'s ${size}-byte value runs past the page`);
        if ((node.flags & F_SUBDATA) !== 0 && size !== DB_RECORD_BYTES) throw new PageDamage(`page ${n}: node ${i} is a database record of ${size} bytes`);
        value = page.subarray(node.dataAt, node.dataAt + size);
      }
    } catch (err) {
      if (!(err instanceof PageDamage)) throw err;
      this.noteDamage(n, err.message);
      return;
    }
    this.flushDamage(node.key);
    this.lastKey = node.key;
    this.entries += 1;
    this.onEntry?.(node.key, value, node.flags);
  }

  private overflowValue(pgno: bigint, size: number): Buffer {
    const needed = Math.floor((HEADER_BYTES - 1 + size) / this.source.pageSize) + 1;
    // LMDB writes a value over a longer one's run in place and keeps the run's length: a run may
    // be longer than its value needs, never shorter. The run's own count says which pages it holds.
    const head = pgno >= 2n && pgno <= BigInt(this.source.lastPage) ? this.source.read(Number(pgno)) : null;
    const stored = head !== null && head.length >= HEADER_BYTES ? head.readUInt32LE(12) : needed;
    const pages = stored >= needed && pgno + BigInt(stored) - 1n <= BigInt(this.source.lastPage) ? stored : needed;
    const first = this.claim(pgno, pages);
    // The check needs only the run's header; salvage needs the value (the file's size is checked either way).
    const run = this.source.read(first, this.onEntry === null ? 1 : pages);
    const end = this.source.read(first + pages - 1);
    if (run === null || end === null || end.length < this.source.pageSize) throw new PageDamage(`overflow pages ${first}..${first + pages - 1} are past the end of the file`);
    if (run.readBigUInt64LE(0) !== BigInt(first)) throw new PageDamage(`overflow page ${first} holds the number of page ${run.readBigUInt64LE(0)}`);
    if ((run.readUInt16LE(10) & PAGE_KINDS) !== P_OVERFLOW) throw new PageDamage(`page ${first} is not an overflow page (flags 0x${run.readUInt16LE(10).toString(16)})`);
    if (run.readUInt32LE(12) !== pages) throw new PageDamage(`overflow page ${first} says ${run.readUInt32LE(12)} pages, its value needs ${needed}`);
    this.overflowPages += BigInt(pages);
    return run.subarray(HEADER_BYTES, HEADER_BYTES + size);
  }
}

/** Throws PageDamage unless `page` is a branch or leaf page numbered `pgno` with sane bounds. */
function checkHeader(page: Buffer, pgno: number, pageSize: number, kind: number): void {
  if (page.length < pageSize) throw new PageDamage(`page ${pgno} is cut short by the end of the file`);
  const own = page.readBigUInt64LE(0);
  if (own !== BigInt(pgno)) throw new PageDamage(`page ${pgno} holds the number of page ${own} (overwritten or misplaced)`);
  const flags = page.readUInt16LE(10) & PAGE_KINDS;
  if (flags !== kind) throw new PageDamage(`page ${pgno} is not a ${kind === P_LEAF ? 'leaf' : 'branch'} page (flags 0x${page.readUInt16LE(10).toString(16)})`);
  const lower = page.readUInt16LE(12);
  const upper = page.readUInt16LE(14);
  if (lower < HEADER_BYTES + 2 || (lower - HEADER_BYTES) % 2 !== 0 || upper < lower || upper > pageSize) throw new PageDamage(`page ${pgno} has bounds ${lower}..${upper}`);
  if (kind === P_BRANCH && lower < HEADER_BYTES + 4) throw new PageDamage(`branch page ${pgno} has one child`);
}

/**
 * Walks every tree of the snapshot whose meta page holds `free` and `main` (FREE_DBI, MAIN_DBI):
 * the free database, the main one and every named database it records. `onEntry` gets every entry
 * of every database that could be read (salvage); the walk itself keeps no values.
 */
export function walkStore(source: PageSource, meta: { free: DbRecord; main: DbRecord; txnId: bigint }, onEntry: EntryVisitor | null = null): WalkReport {
  const seen = new Uint8Array(source.lastPage + 1);
  seen[0] = 1;
  seen[1] = 1;
  const databases: DatabaseWalk[] = [];
  const report = (name: string | null, walk: TreeWalk, record: DbRecord): void => {
    databases.push({ name, entries: walk.entries, expectedEntries: Number(record.entries), damage: walk.damage });
  };
  const named: [string, DbRecord][] = [];
  const main = new TreeWalk(source, seen, meta.main, (key, value, flags) => {
    if ((flags & F_SUBDATA) !== 0) named.push([key.toString('utf8'), parseDbRecord(Buffer.from(value))]);
    else onEntry?.(null, key, Buffer.from(value));
  });
  main.run();
  report(null, main, meta.main);
  for (const [name, record] of named) {
    const walk = new TreeWalk(source, seen, record, onEntry === null ? null : (key, value) => onEntry(name, key, value));
    try {
      walk.run();
    } catch (err) {
      walk.damage.push({ page: null, problem: err instanceof Error ? err.message : String(err), after: null, before: null });
    }
    report(name, walk, record);
  }
  const freeLists: Buffer[] = [];
  const free = new TreeWalk(source, seen, meta.free, (_, value) => freeLists.push(Buffer.from(value)));
  free.run();
  for (const list of freeLists) {
    const problem = claimFreeList(list, seen, source.lastPage);
    if (problem !== null) free.damage.push({ page: null, problem, after: null, before: null });
  }
  report('<free pages>', free, meta.free);
  let unreachablePages = 0;
  for (let i = 2; i <= source.lastPage; i++) if (seen[i] === 0) unreachablePages += 1;
  return { pageSize: source.pageSize, lastPage: source.lastPage, txnId: meta.txnId, databases, unreachablePages };
}

/** Marks the pages of one free list; the reason it is damaged, or null. */
function claimFreeList(list: Buffer, seen: Uint8Array, lastPage: number): string | null {
  if (list.length < 8 || list.length % 8 !== 0) return `a free list of ${list.length} bytes`;
  const count = list.readBigUInt64LE(0);
  if (count !== BigInt(list.length / 8 - 1)) return `a free list counts ${count} pages in ${list.length} bytes`;
  for (let at = 8; at < list.length; at += 8) {
    const pgno = list.readBigUInt64LE(at);
    if (pgno < 2n || pgno > BigInt(lastPage)) return `free page number ${pgno} is outside the file's pages`;
    if (seen[Number(pgno)] !== 0) return `free page ${pgno} is also in use or listed twice`;
    seen[Number(pgno)] = 1;
  }
  return null;
}
