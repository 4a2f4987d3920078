/**
 * Reads the journal powercut-shim.c writes (its grammar is at the top of that file): one record
 * per write, truncate, flush and name change of the watched folder's files, in the order they
 * happened. A journal cut short by the SIGKILL ends at the last complete record.
 */

export type JournalRecord =
  /** An open of `name`: `file` now stands for the file the folder holds under that name. */
  | { kind: 'O'; seq: number; file: number; created: boolean; name: string }
  /** A write ('S': on an O_SYNC/O_DSYNC descriptor, durable on return). */
  | { kind: 'W' | 'S'; seq: number; file: number; offset: number; data: Buffer }
  | { kind: 'T'; seq: number; file: number; length: number }
  /** A flush of one file returned: its writes and truncates with seq < covers are durable. */
  | { kind: 'F'; covers: number; file: number }
  /** 'D': a flush of the folder returned (name changes with seq < covers durable); 'A': sync/syncfs (everything). */
  | { kind: 'D' | 'A'; covers: number }
  | { kind: 'U'; seq: number; name: string }
  /** 'R': a rename (`to` replaced if it existed); 'L': a hard link (`to` is a second name of `from`'s file). */
  | { kind: 'R' | 'L'; seq: number; from: string; to: string };

export function parseJournal(journal: Buffer): JournalRecord[] {
  const records: JournalRecord[] = [];
  let at = 0;
  const has = (n: number): boolean => at + n <= journal.length;
  const u32 = (o: number): number => journal.readUInt32LE(at + o);
  const u64 = (o: number): number => Number(journal.readBigUInt64LE(at + o));
  // A name at at+o, u32 length first; returns [name, bytes used] or undefined when cut short.
  const name = (o: number): [string, number] | undefined => {
    if (!has(o + 4)) return undefined;
    const n = u32(o);
    return has(o + 4 + n) ? [journal.toString('utf8', at + o + 4, at + o + 4 + n), 4 + n] : undefined;
  };
  while (at < journal.length) {
    const kind = String.fromCharCode(journal[at]!);
    let used: number;
    if (kind === 'O') {
      const n = has(14) ? name(14) : undefined;
      if (!n) break; // the kill can cut the last record short
      records.push({ kind, seq: u64(1), file: u32(9), created: journal[at + 13] === 1, name: n[0] });
      used = 14 + n[1];
    } else if (kind === 'W' || kind === 'S') {
      if (!has(25) || !has(25 + u32(21))) break;
      const length = u32(21);
      records.push({ kind, seq: u64(1), file: u32(9), offset: u64(13), data: journal.subarray(at + 25, at + 25 + length) });
      used = 25 + length;
    } else if (kind === 'T') {
      if (!has(21)) break;
      records.push({ kind, seq: u64(1), file: u32(9), length: u64(13) });
      used = 21;
    } else if (kind === 'F') {
      if (!has(13)) break;
      records.push({ kind, covers: u64(1), file: u32(9) });
      used = 13;
    } else if (kind === 'D' || kind === 'A') {
      if (!has(9)) break;
      records.push({ kind, covers: u64(1) });
      used = 9;
    } else if (kind === 'U') {
      const n = has(9) ? name(9) : undefined;
      if (!n) break;
      records.push({ kind, seq: u64(1), name: n[0] });
      used = 9 + n[1];
    } else if (kind === 'R' || kind === 'L') {
      const from = has(9) ? name(9) : undefined;
      const to = from ? name(9 + from[1]) : undefined;
      if (!from || !to) break;
      records.push({ kind, seq: u64(1), from: from[0], to: to[0] });
      used = 9 + from[1] + to[1];
    } else {
      throw new Error(`power-cut journal: unknown record ${JSON.stringify(kind)} at byte ${at}`);
    }
    at += used;
  }
  return records;
}
