/**
 * Linux /proc figures the suites report, read the same way everywhere: anonymous resident memory
 * (RssAnon: the JS heap and native allocations, not the mapped store file nor the node binary) and
 * the bytes a process has caused to be written to a block device (/proc/<pid>/io write_bytes:
 * counted when a page-cache folio is dirtied, so flushes and rewrites are in and what was passed
 * to write() is not). A folio is counted whole: where the kernel caches a file in large folios
 * (ext4 on linux 6.x), one 4 KiB pwrite + fdatasync into a region first written by one 4 MiB
 * write counts ~1 MiB, into a region written page by page 4 KiB; LMDB's commits read about 2x
 * the pages they write (bench/commit-pages.ts counts pages exactly). Compare contenders with it,
 * not disks (for what reaches a disk, the block device's own counter below, from /sys). Undefined
 * where /proc is missing (not Linux) or unreadable.
 */
import { readFileSync, statSync } from 'node:fs';

function field(file: string, pattern: RegExp): number | undefined {
  try {
    const match = pattern.exec(readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Anonymous RSS of `pid` (default: this process), in bytes. */
export function anonRssBytes(pid: number | 'self' = 'self'): number | undefined {
  const kb = field(`/proc/${pid}/status`, /^RssAnon:\s+(\d+) kB/m);
  return kb === undefined ? undefined : kb * 1024;
}

/** A /proc/<pid>/status figure (VmRSS, VmHWM, RssAnon) in bytes. */
export function statusBytes(pid: number | 'self', name: string): number | undefined {
  const kb = field(`/proc/${pid}/status`, new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'));
  return kb === undefined ? undefined : kb * 1024;
}

/** Bytes this process has caused to be written to storage so far. */
export function deviceBytesWritten(pid: number | 'self' = 'self'): number | undefined {
  return field(`/proc/${pid}/io`, /^write_bytes:\s+(\d+)$/m);
}

/**
 * The block device under `path`'s filesystem, as its /sys statistics file, or undefined where there
 * is none (tmpfs, not Linux). Its sectors-written counter is what reached the disk: the data,
 * the filesystem's journal, each page once however the page cache folds it, and also whatever
 * any other process wrote to that disk meanwhile (quiet machine assumed).
 */
export function blockDeviceStatFile(path: string): string | undefined {
  try {
    // Linux's dev_t: minor in bits 0-7 and 20-31, major in bits 8-19 (and 32+).
    const dev = statSync(path).dev;
    const major = Math.floor(dev / 256) % 4096 + Math.floor(dev / 2 ** 32) * 4096;
    const minor = (dev % 256) + Math.floor(dev / 2 ** 20) % 4096 * 256;
    const file = `/sys/dev/block/${major}:${minor}/stat`;
    readFileSync(file, 'utf8');
    return file;
  } catch {
    return undefined;
  }
}

/** Bytes written to the block device of `statFile` since boot (sectors written x 512, the unit /sys counts in). */
export function blockBytesWritten(statFile: string | undefined): number | undefined {
  if (statFile === undefined) return undefined;
  try {
    const sectors = Number(readFileSync(statFile, 'utf8').trim().split(/\s+/)[6]);
    return Number.isFinite(sectors) ? sectors * 512 : undefined;
  } catch {
    return undefined;
  }
}

/** The child processes of `pid` (a wrapper's: bin/edgetable.js restarts long-running commands). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** CPU time (user + system) `pid` has used so far, in ms, at the clock tick's resolution (10 ms). */
export function cpuMs(pid: number | 'self' = 'self'): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** USER_HZ: Linux reports /proc times in 1/100 s on every architecture. */
const CLOCK_TICKS_PER_SECOND = 100;

/** A /proc/meminfo figure (Dirty, Writeback) in bytes. */
export function meminfoBytes(name: string): number | undefined {
  const kb = field('/proc/meminfo', new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'));
  return kb === undefined ? undefined : kb * 1024;
}
