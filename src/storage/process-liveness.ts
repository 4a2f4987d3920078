/**
 * Whether another process on this machine is still running: what a claim, a registration or a
 * status file left by a process is judged by. A zombie (ended, not yet reaped by its parent) has
 * finished its work, so it counts as gone; kill(pid, 0) alone would call it alive.
 */
import { readFileSync } from 'node:fs';

/** Whether `pid` is a running process: a zombie is not; a process of another user (EPERM) is. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false; // no procfs here: kill(0) alone decides
  }
  // "pid (comm) state ...": comm may hold spaces and parentheses, the state follows the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
}
