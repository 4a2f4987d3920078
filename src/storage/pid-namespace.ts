/**
 * One store folder, one PID namespace. LMDB tells its readers apart by process id: the reader
 * table in lock.mdb holds each process's pid, and each process locks the byte at offset pid of
 * lock.mdb. Two processes of different PID namespaces (two containers on one volume) may have the
 * same pid, pid 1 being the usual one, and then the second fails with raw lock errors, or each
 * takes the other's slot for its own; the sweep and the writers' claims (reader-table.ts,
 * redo-handover.ts) judge pids the same way. So every open leaves a marker naming its namespace,
 * and an open from another namespace than a live marker's is refused with an explanation.
 *
 *   <dir>/pidns-<namespace inode>-<pid>     empty; its mtime is its lease
 *
 * A marker of this namespace is live while its process is (process-liveness.ts). One of another
 * namespace cannot be judged by its pid, so its process renews its mtime every LEASE_MS / 3 while
 * the store is open and removes it at close; one left unrenewed for LEASE_MS (its container was
 * killed) is stale and removed by the next open. A process whose event loop is blocked for longer
 * lets its lease lapse: another namespace may then open beside it, as before this check.
 */
import { closeSync, openSync, readdirSync, readlinkSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileModeIn, setMode } from './file-modes.js';
import { isAlive } from './process-liveness.js';
import { StorageError } from './storage-error.js';

export const PID_NAMESPACE_LEASE_MS = 30_000;
const PREFIX = 'pidns-';

/** This process's PID namespace (the inode of /proc/self/ns/pid), or null where there is none to read. */
export function currentPidNamespace(): string | null {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? null;
  } catch {
    return null;
  }
}

export type Marker = { readonly name: string; readonly namespace: string; readonly pid: number; readonly mtimeMs: number };

function markers(dir: string): Marker[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: Marker[] = [];
  for (const name of names) {
    const m = /^pidns-(\d+)-(\d+)$/.exec(name);
    if (!m) continue;
    try {
      found.push({ name, namespace: m[1]!, pid: Number(m[2]), mtimeMs: statSync(join(dir, name)).mtimeMs });
    } catch {
      /* removed meanwhile */
    }
  }
  return found;
}

/** Whether a marker still stands for a process that has the store open (see the header). */
export function isLiveMarker(marker: Marker, namespace: string, now: number, alive: (pid: number) => boolean = isAlive): boolean {
  if (marker.namespace === namespace) return marker.pid !== process.pid && alive(marker.pid);
  return now - marker.mtimeMs < PID_NAMESPACE_LEASE_MS;
}

export type NamespaceMembership = { readonly renew: () => void; readonly leave: () => void };

/**
 * Before LMDB opens `dir`: refuses (BUSY) when a process of another PID namespace has it open,
 * removes stale markers, and leaves this process's. `namespace` null (no procfs): no check.
 * A folder this process may not write (a read-only open of a group's store) is checked only.
 */
export function joinPidNamespace(dir: string, namespace: string | null, now = Date.now()): NamespaceMembership {
  const none: NamespaceMembership = { renew: () => undefined, leave: () => undefined };
  if (namespace === null) return none;
  for (const marker of markers(dir)) {
    if (isLiveMarker(marker, namespace, now)) {
      if (marker.namespace === namespace) continue;
      throw new StorageError(
        'BUSY',
        `store ${dir} is open in another PID namespace (namespace ${marker.namespace}, its process ${marker.pid}; this process is in ${namespace}), ` +
          'e.g. another container on the same volume: LMDB tells processes apart by pid, which processes of two namespaces may share, so one store folder ' +
          'takes processes of one namespace only. Open it from that container, or run both in one PID namespace (docker --pid container:<name>); ' +
          `if that process is gone, its marker ${join(dir, marker.name)} lapses ${Math.ceil((marker.mtimeMs + PID_NAMESPACE_LEASE_MS - now) / 1000)} s from now, or remove it`,
      );
    }
    if (marker.namespace !== namespace || marker.pid !== process.pid) removeQuietly(join(dir, marker.name));
  }
  const own = join(dir, `${PREFIX}${namespace}-${process.pid}`);
  try {
    closeSync(openSync(own, 'w', 0o600));
    setMode(own, fileModeIn(dir));
  } catch {
    return none; // not ours to write: checked, not announced
  }
  return {
    renew: () => {
      try {
        const at = new Date();
        utimesSync(own, at, at);
      } catch {
        /* removed by hand: the next renewal tries again */
      }
    },
    leave: () => removeQuietly(own),
  };
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* gone already */
  }
}
