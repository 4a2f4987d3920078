/**
 * Which pages each durable commit writes (issue 16.2, SD wear), counted exactly: loads `loaded`
 * readings of the shared workload into one LMDB contender, then writes `measured` more under
 * strace and classifies every page LMDB wrote by reading the page itself from the trace:
 *
 * - LMDB's page header (mp_pgno u64, pad u16, mp_flags u16, lower u16, upper u16) gives the kind:
 *   branch (0x01), leaf (0x02), overflow (0x04); a write shorter than a page is a meta page.
 * - The tree is told by the page's keys: a leaf holding F_SUBDATA nodes belongs to the main
 *   (unnamed) database, whose records are the named databases and the write sequence; keys of
 *   exactly 8 bytes are LMDB's free-page database (keyed by txn id); the rest are named databases
 *   (the items, for the contenders here). A branch page is told by its second key (the first is
 *   empty in LMDB).
 *
 * Also reported: write calls and fdatasync calls per commit, and for edgetable the puts and deletes
 * per database per commit (counted in storage/txn.ts's LmdbWriteTxn), so a page written for a
 * database nothing needed shows. A measurement, not a test; it needs strace (Linux) and leave to
 * attach it to the child's own main thread (root, or kernel.yama.ptrace_scope 0).
 *
 *   tsx bench/commit-pages.ts <edgetable|raw-lmdb> <batch|single> [loaded=20000] [measured]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENDERS, type ContenderId } from './contenders/index.js';
import { BATCH_SIZE, loadOrder, SENSORS } from './workload.js';
import { LmdbWriteTxn } from '../src/storage/txn.js';
import { open } from '../src/edgetable.js';

const PAGE = 4096;
const MARK = 'commit-pages-measured-part';

type Kind = 'branch' | 'leaf' | 'overflow' | 'other';
type Tree = 'main' | 'free' | 'named';

if (process.argv[2] === '--child') await child(process.argv.slice(3));
else parent(process.argv.slice(2));

function parent(args: string[]): void {
  const [id = 'edgetable', mode = 'batch', loadedText, measuredText] = args;
  const loaded = Number(loadedText ?? 20_000);
  const measured = Number(measuredText ?? (mode === 'batch' ? 2_500 : 300));
  const dir = mkdtempSync(join(tmpdir(), 'commit-pages-'));
  const self = fileURLToPath(import.meta.url);
  const run = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', id, mode, String(loaded), String(measured), dir], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`child failed (is strace installed?): ${run.error?.message ?? ''}${run.stderr}`);
  const childReport = JSON.parse(run.stdout.trim().split('\n').pop()!) as { commits: number; changesPerCommit: Record<string, number> };
  const pages = classify(readFileSync(join(dir, 'trace'), 'utf8'));
  rmSync(dir, { recursive: true, force: true });
  const per = (n: number) => Math.round((n / pages.commits) * 100) / 100;
  const byTree: Record<string, number> = {};
  for (const [k, v] of Object.entries(pages.pages)) byTree[k] = per(v);
  console.log(JSON.stringify({
    contender: id,
    mode,
    loaded,
    commits: pages.commits,
    dataPagesPerCommit: per(Object.values(pages.pages).reduce((a, b) => a + b, 0)),
    pagesPerCommit: byTree,
    writeCallsPerCommit: per(pages.writeCalls),
    flushesPerCommit: per(pages.flushes),
    changesPerCommit: childReport.changesPerCommit,
  }));
}

/** Pages written after the marker, by tree and kind; commits = meta-page writes. */
function classify(trace: string): { commits: number; pages: Record<string, number>; writeCalls: number; flushes: number } {
  const mark = [...Buffer.from(MARK)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
  const lines = trace.split('\n');
  const start = lines.findIndex((l) => l.includes(mark));
  if (start < 0) throw new Error('marker not found in the trace');
  const pages: Record<string, number> = {};
  let commits = 0;
  let writeCalls = 0;
  let flushes = 0;
  for (const line of lines.slice(start + 1)) {
    if (/(^|\s)(fdatasync|fsync)\(\d+\)\s+= 0/.test(line)) flushes += 1;
    if (/^\d+ (pwrite64|writev|pwritev)\(/.test(line) && !line.includes(') = ')) continue;
    const single = /pwrite64\(\d+, "((?:\\x[0-9a-f]{2})*)"\.*, (\d+), \d+\)\s+= \d+/.exec(line);
    const vector = single ? null : /(writev|pwritev)\(\d+, \[(.*)\], \d+/.exec(line);
    const chunks = single ? [{ hex: single[1]!, length: Number(single[2]) }] : vector ? [...vector[2]!.matchAll(/iov_base="((?:\\x[0-9a-f]{2})*)"\.*, iov_len=(\d+)/g)].map((c) => ({ hex: c[1]!, length: Number(c[2]) })) : [];
    if (chunks.length === 0) continue;
    if (chunks.length === 1 && chunks[0]!.length % PAGE !== 0) {
      commits += 1; // LMDB writes the meta page's changed part alone, once per commit
      continue;
    }
    writeCalls += 1;
    for (const chunk of chunks) {
      // One page per iovec, except overflow pages (one run); the trace shows the first page only.
      const label = describePage(Buffer.from(chunk.hex.slice(0, PAGE * 4).replaceAll('\\x', ''), 'hex'));
      pages[label] = (pages[label] ?? 0) + chunk.length / PAGE;
    }
  }
  if (commits === 0) throw new Error('no commit found after the marker');
  return { commits, pages, writeCalls, flushes };
}

function describePage(page: Buffer): string {
  const flags = page.readUInt16LE(10);
  const kind: Kind = flags & 0x01 ? 'branch' : flags & 0x02 ? 'leaf' : flags & 0x04 ? 'overflow' : 'other';
  if (kind === 'overflow' || kind === 'other') return kind;
  const lower = page.readUInt16LE(12);
  const nodes = (lower - 16) / 2;
  let tree: Tree = 'named';
  const keyOf = (i: number) => {
    const off = page.readUInt16LE(16 + 2 * i);
    const keySize = page.readUInt16LE(off + 6);
    return { nodeFlags: page.readUInt16LE(off + 4), keySize, key: page.subarray(off + 8, off + 8 + keySize) };
  };
  if (kind === 'leaf') {
    for (let i = 0; i < nodes; i++) if (keyOf(i).nodeFlags & 0x02) tree = 'main';
    if (tree !== 'main' && nodes > 0 && keyOf(0).keySize === 8) tree = 'free';
  } else if (nodes > 1) {
    const key = keyOf(1).key;
    if (key.length === 8) tree = 'free';
    else if (isDatabaseName(key)) tree = 'main';
  }
  return `${tree} ${kind}`;
}

/**
 * A branch key of the main database: an edgetable database name (storage/database.ts: printable,
 * here always "_..." or "t/...") or the write sequence's key. Item keys never look like one: they
 * start with the 4-byte partition hash (codec/item-key.ts); the raw contender's start "sensor-".
 */
function isDatabaseName(key: Buffer): boolean {
  const text = key.toString('latin1');
  return text === '\0write-sequence' || /^(_|t\/)[\x20-\x7e]*$/.test(text);
}

async function child([id = '', mode = '', loadedText, measuredText, dir = '']: string[]): Promise<void> {
  const contender = CONTENDERS[id as ContenderId]();
  const changes = new Map<string, number>();
  let counting = false;
  for (const method of ['put', 'delete'] as const) {
    const original = LmdbWriteTxn.prototype[method] as (this: LmdbWriteTxn, ...args: unknown[]) => unknown;
    (LmdbWriteTxn.prototype as unknown as Record<string, unknown>)[method] = function (this: LmdbWriteTxn, ...args: unknown[]) {
      const name = `${method} ${(args[0] as { name: string }).name}`;
      if (counting) changes.set(name, (changes.get(name) ?? 0) + 1);
      return original.apply(this, args);
    };
  }
  const loaded = Number(loadedText);
  const measured = Number(measuredText);
  mkdirSync(join(dir, 'data'));
  const otherTables = Number(process.env.OTHER_TABLES ?? 0);
  if (otherTables > 0) createOtherTables(join(dir, 'data'), otherTables);
  contender.open(join(dir, 'data'));
  const inputs: unknown[] = [];
  for (const r of loadOrder(Math.ceil((loaded + measured) / SENSORS))) {
    if (inputs.length >= loaded + measured) break;
    inputs.push(contender.prepare(r));
  }
  for (let i = 0; i < loaded; i += BATCH_SIZE) contender.putBatch(inputs.slice(i, Math.min(loaded, i + BATCH_SIZE)));
  // strace only the measured part: attached to this (main) thread, where the contenders commit.
  const tracer = spawn('strace', ['-xx', `-s${PAGE}`, '-e', 'trace=openat,pwrite64,writev,pwritev,fdatasync,fsync', '-o', join(dir, 'trace'), '-p', String(process.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    tracer.on('error', reject);
    tracer.stderr.on('data', (d: Buffer) => {
      if (d.toString().includes('attached')) resolve();
    });
  });
  try {
    readFileSync(join(dir, MARK)); // the marker the parent finds in the trace
  } catch {
    /* absent on purpose: only the openat matters */
  }
  counting = true;
  let commits = 0;
  const timed = inputs.slice(loaded);
  if (mode === 'batch') {
    for (let i = 0; i < timed.length; i += BATCH_SIZE, commits++) contender.putBatch(timed.slice(i, i + BATCH_SIZE));
  } else {
    for (const input of timed) {
      contender.putItem(input);
      commits++;
    }
  }
  counting = false;
  contender.close();
  const exited = new Promise((resolve) => tracer.on('exit', resolve));
  tracer.kill('SIGINT');
  await exited;
  const changesPerCommit: Record<string, number> = {};
  for (const [k, v] of changes) changesPerCommit[k] = Math.round((v / commits) * 100) / 100;
  console.log(JSON.stringify({ commits, changesPerCommit }));
}

/**
 * OTHER_TABLES=n (edgetable): n more tables in the store before the contender's, so LMDB's main
 * database holds more named-database records than one page does (as on a device with a few tables
 * with several partitions, indexes and change logs).
 */
function createOtherTables(dir: string, count: number): void {
  const db = open({ path: dir, durability: 'sync' });
  for (let i = 0; i < count; i++) {
    db.createTable({
      TableName: `Other${String(i).padStart(3, '0')}`,
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      PartitionCount: 2,
    });
  }
  db.close();
}
