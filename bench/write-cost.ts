/**
 * What one write costs the device (issue 16.2): loads `items` sensor readings of the shared
 * workload into one contender and prints, as one JSON line, the store's size per item, the bytes
 * per item that reached the disk holding the store (its sectors written, journal included;
 * system-wide, so run it on a quiet machine; absent on tmpfs), the bytes per item this process
 * dirtied in the page cache as /proc/self/io write_bytes counts them (whole folios: scattered
 * 4 KiB writes read 2-3x high), and the ingest rate. A measurement, not a test: it never fails on
 * a figure.
 *
 *   tsx bench/write-cost.ts <edgetable|edgetable-log|edgetable-log-held|raw-lmdb|sqlite> <batch|single> [items]
 *
 * `batch`: one durable txn per 25 readings; `single`: one durable txn per reading.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTENDERS, type ContenderId } from './contenders/index.js';
import { BATCH_SIZE, loadOrder, SENSORS } from './workload.js';
import { blockBytesWritten, blockDeviceStatFile, deviceBytesWritten } from './proc.js';

const [id = 'edgetable', mode = 'batch', countText] = process.argv.slice(2);
const items = Number(countText ?? (mode === 'batch' ? 100_000 : 2_000));

function folderBytes(dir: string): { size: number; allocated: number } {
  let size = 0;
  let allocated = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const s = statSync(join(dir, name));
    if (!s.isFile()) continue;
    size += s.size;
    allocated += s.blocks * 512;
  }
  return { size, allocated };
}

const contender = CONTENDERS[id as ContenderId]();
const dir = mkdtempSync(join(tmpdir(), 'write-cost-'));
contender.open(dir);
const inputs: unknown[] = [];
for (const r of loadOrder(Math.ceil(items / SENSORS))) {
  if (inputs.length >= items) break;
  inputs.push(contender.prepare(r));
}
const disk = blockDeviceStatFile(dir);
const before = deviceBytesWritten() ?? Number.NaN;
const diskBefore = blockBytesWritten(disk);
const started = process.hrtime.bigint();
if (mode === 'batch') for (let i = 0; i < inputs.length; i += BATCH_SIZE) contender.putBatch(inputs.slice(i, i + BATCH_SIZE));
else for (const input of inputs) contender.putItem(input);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const written = (deviceBytesWritten() ?? Number.NaN) - before;
const diskAfter = blockBytesWritten(disk);
contender.close();
const store = folderBytes(dir);
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({
  contender: id,
  mode,
  items: inputs.length,
  storeBytesPerItem: Math.round(store.allocated / inputs.length),
  fileBytesPerItem: Math.round(store.size / inputs.length),
  ...(diskBefore !== undefined && diskAfter !== undefined ? { diskBytesPerItem: Math.round((diskAfter - diskBefore) / inputs.length) } : {}),
  deviceBytesWrittenPerItem: Math.round(written / inputs.length),
  itemsPerSecond: Math.round(inputs.length / seconds),
}));
