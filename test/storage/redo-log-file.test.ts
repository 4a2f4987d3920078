import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChangeWriter,
  HEADER_BYTES,
  RECORD_CHANGES,
  RECORD_CHECKPOINT,
  RECORD_VOID,
  RedoLogFile,
  currentBootId,
  decodeChanges,
  LOG_FILES,
  scanLog,
} from '../../src/storage/redo-log-file.js';
import { StorageError } from '../../src/storage/storage-error.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-redo-'));
  dirs.push(dir);
  return dir;
}
const BOOT = '0123456789abcdef0123456789abcdef';
const bytes = (text: string): Uint8Array => Buffer.from(text);

describe('redo log file names', () => {
  it('are three: two used in turn, a third only for a new generation after a failed flush', () => {
    expect(LOG_FILES).toEqual(['redo-a.log', 'redo-b.log', 'redo-c.log']);
  });
});

describe('boot id', () => {
  it('is the kernel boot id as 32 hex digits, or the test stand-in', () => {
    expect(currentBootId()).toMatch(/^[0-9a-f]{32}$/);
    process.env.EDGETABLE_TEST_BOOT_ID = 'ffffffff-ffff-ffff-ffff-000000000001';
    try {
      expect(currentBootId()).toBe('ffffffffffffffffffff000000000001');
    } finally {
      delete process.env.EDGETABLE_TEST_BOOT_ID;
    }
  });
});

describe('CHANGES payloads', () => {
  it('carry puts, deletes and whole-database changes in order, copied when made', () => {
    const writer = new ChangeWriter();
    const key = Buffer.from('k1');
    writer.put(bytes('items'), key, bytes('v1'));
    key[1] = 0x32; // the caller reuses its scratch: the payload kept what was put
    writer.delete(bytes('items'), key);
    writer.whole('create', bytes('ünïcode'));
    writer.whole('clear', bytes('items'));
    writer.whole('drop', bytes('old'));
    writer.put(new Uint8Array(0), bytes('\0write-sequence'), new Uint8Array(8));
    for (let i = 0; i < 200; i++) writer.put(bytes('big'), bytes(`k${i}`), new Uint8Array(100).fill(i)); // grows past its first buffer
    expect(writer.count).toBe(206);
    const changes = decodeChanges(writer.payload());
    expect(changes.slice(0, 6)).toEqual([
      { op: 'put', db: 'items', key: bytes('k1'), value: bytes('v1') },
      { op: 'delete', db: 'items', key: bytes('k2') },
      { op: 'create', db: 'ünïcode' },
      { op: 'clear', db: 'items' },
      { op: 'drop', db: 'old' },
      { op: 'put', db: '', key: bytes('\0write-sequence'), value: Buffer.alloc(8) },
    ]);
    expect(changes[205]).toEqual({ op: 'put', db: 'big', key: bytes('k199'), value: Buffer.alloc(100, 199) });
  });

  it('that do not decode are reported as CORRUPT', () => {
    expect(() => decodeChanges(Uint8Array.from([9, 0, 0]))).toThrow(StorageError);
    expect(() => decodeChanges(Uint8Array.from([1, 5, 0, 65]))).toThrow(/does not decode/);
  });
});

describe('a redo log file', () => {
  it('holds its header and the records appended, in order, with their offsets', () => {
    const dir = tempDir();
    const file = RedoLogFile.begin(dir, 'redo-a.log', 7n, BOOT);
    const first = file.append(RECORD_CHECKPOINT, 10n, bytes('meta'));
    const second = file.append(RECORD_CHANGES, 11n, bytes('changes'));
    const third = file.append(RECORD_VOID, 11n, bytes('x'));
    file.flushSync();
    file.close();
    expect(first).toBe(HEADER_BYTES);
    const scan = scanLog(readFileSync(join(dir, 'redo-a.log')), 'f');
    expect(scan.header).toEqual({ generation: 7n, bootId: BOOT });
    expect(scan.records.map((r) => [r.offset, r.kind, r.sequence, Buffer.from(r.payload).toString()])).toEqual([
      [first, RECORD_CHECKPOINT, 10n, 'meta'],
      [second, RECORD_CHANGES, 11n, 'changes'],
      [third, RECORD_VOID, 11n, 'x'],
    ]);
    expect(scan.validBytes).toBe(scan.fileBytes);
  });

  it('begun again for a later generation is written over in place: its size stays, and the earlier records no longer read', () => {
    const dir = tempDir();
    const old = RedoLogFile.begin(dir, 'redo-b.log', 1n, BOOT);
    for (let i = 0; i < 20; i++) old.append(RECORD_CHANGES, BigInt(i + 1), Buffer.alloc(100, i));
    old.close();
    const path = join(dir, 'redo-b.log');
    const size = statSync(path).size;
    const again = RedoLogFile.begin(dir, 'redo-b.log', 3n, BOOT);
    again.append(RECORD_CHANGES, 40n, Buffer.alloc(100, 7)); // exactly over the first old record
    again.append(RECORD_CHANGES, 41n, bytes('short'));
    again.close();
    expect(statSync(path).size).toBe(size);
    const scan = scanLog(readFileSync(path), 'f');
    expect(scan.header.generation).toBe(3n);
    expect(scan.records.map((r) => r.sequence)).toEqual([40n, 41n]);
  });

  it('resumed, appends after its last intact record', () => {
    const dir = tempDir();
    const file = RedoLogFile.begin(dir, 'redo-a.log', 2n, BOOT);
    file.append(RECORD_CHANGES, 1n, bytes('one'));
    file.close();
    const path = join(dir, 'redo-a.log');
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.from([9, 9, 9])])); // a torn append
    const resumed = RedoLogFile.resume(dir, 'redo-a.log');
    expect(resumed.generation).toBe(2n);
    resumed.append(RECORD_CHECKPOINT, 1n, bytes('cp'));
    resumed.close();
    expect(scanLog(readFileSync(path), 'f').records.map((r) => r.kind)).toEqual([RECORD_CHANGES, RECORD_CHECKPOINT]);
  });

  it('cut anywhere inside its last record, or followed by zeros, scans to the records before the cut', () => {
    const dir = tempDir();
    const file = RedoLogFile.begin(dir, 'redo-a.log', 1n, BOOT);
    file.append(RECORD_CHANGES, 1n, bytes('one'));
    const lastAt = file.append(RECORD_CHANGES, 2n, bytes('the second record'));
    const end = file.size;
    file.close();
    const whole = readFileSync(join(dir, 'redo-a.log'));
    for (let cut = lastAt; cut < end; cut++) {
      const scan = scanLog(whole.subarray(0, cut), 'f');
      expect(scan.records.map((r) => r.sequence)).toEqual([1n]);
      expect(scan.validBytes).toBe(lastAt);
    }
    expect(scanLog(Buffer.concat([whole.subarray(0, lastAt), Buffer.alloc(4096)]), 'f').records).toHaveLength(1);
  });

  it('takes a record back: nothing after it reads', () => {
    const dir = tempDir();
    const file = RedoLogFile.begin(dir, 'redo-a.log', 1n, BOOT);
    file.append(RECORD_CHANGES, 1n, bytes('one'));
    const second = file.append(RECORD_CHANGES, 2n, bytes('two'));
    file.takeBack(second);
    expect(file.size).toBe(second);
    file.close();
    expect(scanLog(readFileSync(join(dir, 'redo-a.log')), 'f').records.map((r) => r.sequence)).toEqual([1n]);
  });

  it('is CORRUPT when one byte of a record changed, in any of its fields: a damaged record is not a torn tail', () => {
    const dir = tempDir();
    const file = RedoLogFile.begin(dir, 'redo-a.log', 1n, BOOT);
    file.append(RECORD_CHANGES, 1n, bytes('one'));
    const second = file.append(RECORD_CHANGES, 2n, bytes('two'));
    const third = file.append(RECORD_CHANGES, 3n, bytes('three'));
    file.close();
    const whole = readFileSync(join(dir, 'redo-a.log'));
    // Every byte of the second record (length, CRC, kind, sequence, payload) and of the last, each with one bit and with all bits flipped.
    for (let at = second; at < whole.length; at++) {
      for (const xor of [1, 0x80, 0xff]) {
        const damaged = Buffer.from(whole);
        damaged[at] = damaged[at]! ^ xor;
        expect(() => scanLog(damaged, 'f'), `byte ${at} ^ ${xor}`).toThrow(new RegExp(`the record at offset ${at < third ? second : third} is damaged`));
      }
    }
  });

  it('stops, without an error, at a record torn as a power cut tears it: a piece of it old or zeros', () => {
    const dir = tempDir();
    const file = RedoLogFile.begin(dir, 'redo-a.log', 3n, BOOT);
    file.append(RECORD_CHANGES, 1n, bytes('one'));
    const second = file.append(RECORD_CHANGES, 2n, Buffer.alloc(3000, 7));
    file.close();
    const whole = readFileSync(join(dir, 'redo-a.log'));
    for (const [from, to] of [[second, second + 17], [second + 100, second + 1100], [second + 2048, whole.length]]) {
      const torn = Buffer.from(whole);
      torn.fill(0, from, to);
      expect(scanLog(torn, 'f').records.map((r) => r.sequence)).toEqual([1n]);
    }
    // The same file begun again for generation 5: generation 3's records after its first are history.
    const again = RedoLogFile.begin(dir, 'redo-a.log', 5n, BOOT);
    again.append(RECORD_CHANGES, 9n, bytes('nine'));
    again.close();
    expect(scanLog(readFileSync(join(dir, 'redo-a.log')), 'f').records.map((r) => r.sequence)).toEqual([9n]);
  });

  it('with a damaged header is CORRUPT, not empty', () => {
    const dir = tempDir();
    RedoLogFile.begin(dir, 'redo-a.log', 1n, BOOT).close();
    const damaged = readFileSync(join(dir, 'redo-a.log'));
    damaged.writeUInt8(damaged[HEADER_BYTES - 10]! ^ 1, HEADER_BYTES - 10);
    expect(() => scanLog(damaged, 'f')).toThrow(/fails its checksum/);
    expect(() => scanLog(Buffer.from('not a log at all, not at all, no'), 'f')).toThrow(/no redo log header/);
  });

  it('flushes on the thread pool and closes after the flushes in flight', async () => {
    const dir = tempDir();
    const file = RedoLogFile.begin(dir, 'redo-a.log', 1n, BOOT);
    file.append(RECORD_CHANGES, 1n, bytes('one'));
    const flushed = file.flush();
    file.close();
    await flushed;
    expect(() => file.append(RECORD_CHANGES, 2n, bytes('two'))).toThrow(/closed/);
  });
});
