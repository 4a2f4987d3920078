/**
 * Linux /proc figures the suites report, read the same way everywhere: anonymous resident memory
 * (RssAnon: the JS heap and native allocations, not the mapped store file nor the node binary) and
 * the bytes a process has caused to be written to a block device (/proc/<pid>/io write_bytes:
 * counted when a page-cache folio is dirtied, so flushes and rewrites are in and what was passed
 * to write() is not). A folio is counted whole: where the kernel caches a file in large folios
 * (ext4 on linux 6.x), one 4 KiB pwrite + fdatasync into a region first written by one 4 MiB
 * write counts ~1 MiB, into a region written page by page 4 KiB; LMDB's commits read about 2x
 * the pages they write (bench/commit-pages.ts counts pages exactly). Compare contenders with it,
 * not disks. Undefined where /proc is missing (not Linux) or unreadable.
 */
import { readFileSync } from 'node:fs';

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
