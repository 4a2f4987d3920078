/**
 * LMDB's reader table (in lock.mdb), read and swept of dead processes' slots from JavaScript.
 *
 * Why: a process that ends without closing its env (kill -9, the OOM killer, a native crash, a
 * process.exit() that skipped close) leaves its reader slot taken. LMDB frees such slots only in
 * mdb_reader_check, which node-lmdb 0.10 does not bind, or when the first process opens the folder
 * again. While another process keeps the folder open (a service), every crash of a restarting
 * neighbour costs one of maxReaders slots for good: after 126 of them every new process fails to
 * open with MDB_READERS_FULL. A dead slot caught inside a read also pins that snapshot, so no page
 * freed since can be reused and data.mdb grows with every write.
 *
 * How it is done, as mdb_reader_check0 does it:
 * - The layout is derived from the lock file's own format word (MDB_LOCK_FORMAT encodes the txn id
 *   size, pthread_t size and pthread_mutex_t size and alignment), so one rule serves x64, arm64
 *   (glibc's 48-byte mutex) and 32-bit arm alike; a format this code does not understand means no
 *   sweep, never a guess.
 * - A slot is dead when no process holds the one-byte fcntl lock LMDB takes at offset `pid` of
 *   lock.mdb before its first read (MDB_PIDLOCK), which is exactly LMDB's own test (F_GETLK there,
 *   /proc/locks here). Clearing a dead slot writes 0 to its pid, as LMDB does.
 *
 * Rules for callers, because the locks are fcntl locks:
 * - Never open and close lock.mdb in a process that has the env open: closing ANY descriptor of a
 *   file drops all of the process's fcntl locks on it, after which other processes would see this
 *   process's slot as dead. The descriptor given here stays open until after the env closed.
 * - Sweep while holding LMDB's writer lock (inside a write txn): LMDB claims only slots whose pid
 *   is 0, so two sweeps serialized by the writer lock cannot clear a slot claimed in between.
 * - /proc/locks lists only locks of processes in the reader's PID namespace; a process in a nested
 *   namespace (a container) cannot tell a dead slot from one of the host's processes, so it does
 *   not sweep (see sweepAllowedHere).
 */
import { fstatSync, readFileSync, readSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';

const MDB_MAGIC = 0xbeefc0de;
const LOCK_VERSION = 2;
const CACHELINE = 64;

export interface ReaderTableLayout {
  readonly txnidBytes: 4 | 8;
  readonly numReadersOffset: number;
  /** Byte offset of slot 0. */
  readonly slotsOffset: number;
  readonly slotBytes: number;
  /** Offset of a slot's pid from the slot's start. */
  readonly pidOffset: number;
}

export interface ReaderSlot {
  readonly index: number;
  /** 0 when the slot is free. */
  readonly pid: number;
  /** The snapshot the slot's read txn holds, or null when it holds none (reset or never begun). */
  readonly txnid: bigint | null;
}

const roundUp = (n: number, to: number): number => Math.ceil(n / to) * to;

/**
 * The reader table's layout, from the first 8 bytes of lock.mdb (magic and MDB_LOCK_FORMAT), or
 * a reason why this lock file is not one whose table can be swept here.
 */
export function decodeLayout(header: Uint8Array): ReaderTableLayout | string {
  if (header.length < 8) return 'lock file too short';
  if (endianness() !== 'LE') return 'big-endian host';
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (view.getUint32(0, true) !== MDB_MAGIC) return 'not an LMDB lock file';
  const format = view.getUint32(4, true);
  if ((format & 0xfff) !== LOCK_VERSION) return `lock format version ${format & 0xfff}`;
  const desc = format >>> 12;
  if (((desc >>> 17) & 1) !== 1) return 'readers take no pid lock';
  if (((desc >>> 16) & 1) !== 0) return 'reader slots wider than a cache line';
  const txnidBytes = (desc >>> 15) & 1 ? 8 : 4;
  const low = desc & 0x7fff; // c + 6p + 18t + 90b + 270L, each term below its multiplier's ratio
  if (low % 6 !== 0) return 'cache line other than 64 bytes';
  if (Math.floor(low / 6) % 3 !== 1) return 'pid other than 4 bytes';
  const tidBytes = (Math.floor(low / 18) % 5) * 4;
  const bodyLines = Math.floor(low / 90) % 3;
  const lockType = Math.floor(low / 270);
  if (lockType < 10 || tidBytes === 0) return `lock type ${lockType} (not a POSIX mutex)`;
  const mutexAlign = 2 ** ((lockType - 10) % 5);
  const mutexBytes = Math.floor((lockType - 10) / 5) * 4;
  // MDB_txbody: magic, format, txnid, numreaders, then the reader mutex.
  const txnidOffset = roundUp(8, txnidBytes);
  const numReadersOffset = txnidOffset + txnidBytes;
  const bodyBytes = roundUp(roundUp(numReadersOffset + 4, mutexAlign) + mutexBytes, Math.max(4, txnidBytes, mutexAlign));
  if (Math.floor(bodyBytes / CACHELINE) % 3 !== bodyLines) return 'reader table header of an unknown size';
  // MDB_txninfo: the body padded to cache lines, the writer mutex padded likewise, then the slots.
  const slotsOffset = roundUp(bodyBytes, CACHELINE) + roundUp(mutexBytes, CACHELINE);
  // MDB_reader: txnid, pid, thread id, padded to a cache line.
  const slotBytes = roundUp(roundUp(txnidBytes + 4, tidBytes) + tidBytes, CACHELINE);
  return { txnidBytes, numReadersOffset, slotsOffset, slotBytes, pidOffset: txnidBytes };
}

function readAt(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/** The slots in use (below the table's high-water mark), as lock.mdb holds them now. */
export function readSlots(fd: number, layout: ReaderTableLayout): ReaderSlot[] {
  const head = readAt(fd, layout.numReadersOffset + 4, 0);
  if (head.length < layout.numReadersOffset + 4) return [];
  const count = head.readUInt32LE(layout.numReadersOffset);
  const table = readAt(fd, count * layout.slotBytes, layout.slotsOffset);
  const slots: ReaderSlot[] = [];
  const none = layout.txnidBytes === 8 ? 0xffffffffffffffffn : 0xffffffffn;
  for (let i = 0; (i + 1) * layout.slotBytes <= table.length; i++) {
    const at = i * layout.slotBytes;
    const txnid = layout.txnidBytes === 8 ? table.readBigUInt64LE(at) : BigInt(table.readUInt32LE(at));
    slots.push({ index: i, pid: table.readUInt32LE(at + layout.pidOffset), txnid: txnid === none ? null : txnid });
  }
  return slots;
}

/**
 * Offsets of the one-byte write locks held on the file (dev, ino), from /proc/locks text: LMDB's
 * per-process pid locks, so the pids (in their owners' namespace) of processes that have the
 * folder open. Lines for blocked requests ("->") are not held locks and are skipped.
 */
export function pidLocks(procLocks: string, dev: bigint, ino: bigint): Set<number> {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  const held = new Set<number>();
  for (const line of procLocks.split('\n')) {
    const m = /^\d+:\s+POSIX\s+\S+\s+WRITE\s+\S+\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s+(\d+)\s+(\d+)\s*$/.exec(line);
    if (m === null) continue;
    if (BigInt(`0x${m[1]}`) !== major || BigInt(`0x${m[2]}`) !== minor || BigInt(m[3]!) !== ino) continue;
    if (m[4] === m[5]) held.add(Number(m[4]));
  }
  return held;
}

/**
 * Whether this process sees every process that could share a folder with it: /proc/locks shows
 * only locks of processes in the viewer's PID namespace, so from a nested one (a container) a
 * host process's slot would look dead. NSpid lists one pid per namespace level.
 */
export function sweepAllowedHere(status = readProcFile('/proc/self/status')): boolean {
  if (status === null) return false;
  const line = /^NSpid:\s*(.*)$/m.exec(status);
  if (line === null) return true; // kernels before 4.1 have no NSpid; their /proc/locks is not filtered either
  return line[1]!.trim().split(/\s+/).length === 1;
}

function readProcFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The table as it is now, with the pids that hold their lock, or why it cannot be judged here. */
type Inspection = { layout: ReaderTableLayout; slots: ReaderSlot[]; live: Set<number> } | string;

function inspect(fd: number, procLocks: string | null, allowed: boolean): Inspection {
  if (!allowed) return 'nested PID namespace';
  if (procLocks === null) return '/proc/locks unreadable';
  const layout = decodeLayout(readAt(fd, 8, 0));
  if (typeof layout === 'string') return layout;
  const { dev, ino } = fstatSync(fd, { bigint: true });
  return { layout, slots: readSlots(fd, layout), live: pidLocks(procLocks, dev, ino) };
}

/** Slots held by live processes and by dead ones, or null when this host cannot tell them apart. */
export function readerCensus(fd: number, procLocks = readProcFile('/proc/locks'), allowed = sweepAllowedHere()): { live: number; stale: number } | null {
  const table = inspect(fd, procLocks, allowed);
  if (typeof table === 'string') return null;
  let live = 0;
  let stale = 0;
  for (const slot of table.slots) {
    if (slot.pid === 0) continue;
    if (table.live.has(slot.pid)) live += 1;
    else stale += 1;
  }
  return { live, stale };
}

export interface SweepResult {
  /** Slots below the table's high-water mark. */
  readonly slots: number;
  /** Dead processes' slots cleared by this sweep. */
  readonly cleared: number;
  /** Why nothing was looked at, when nothing was. */
  readonly skipped?: string;
}

/**
 * Clears the slots of processes that no longer hold their pid lock on lock.mdb (fd: a descriptor
 * of it, opened for writing, that stays open while the env is open; see the rules above). Call it
 * holding LMDB's writer lock. `procLocks` and `allowed` are the host's facts, passed in by tests.
 */
export function sweepDeadReaders(fd: number, procLocks = readProcFile('/proc/locks'), allowed = sweepAllowedHere()): SweepResult {
  const table = inspect(fd, procLocks, allowed);
  if (typeof table === 'string') return { slots: 0, cleared: 0, skipped: table };
  const { layout, slots, live } = table;
  let cleared = 0;
  const zero = Buffer.alloc(4);
  for (const slot of slots) {
    if (slot.pid === 0 || live.has(slot.pid)) continue;
    writeSync(fd, zero, 0, 4, layout.slotsOffset + slot.index * layout.slotBytes + layout.pidOffset);
    cleared += 1;
  }
  return { slots: slots.length, cleared };
}
