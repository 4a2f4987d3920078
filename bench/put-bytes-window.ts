/**
 * Bytes reaching the disk per durable single put as the measuring window grows (issue 16.2): loads
 * `loadRounds` readings of every sensor in batches of 25, as the bench's load does, then runs
 * `putRounds` rounds of single puts (one new reading of every sensor per round, one durable txn
 * each, as the bench's 'put' workload writes them) and prints one JSON line per `every` rounds:
 * that stretch's bytes per put and the running figure from the first put. The bench's 'put'
 * workload measures a few rounds; this shows where its figure sits in the cycle of leaves filling
 * and splitting (docs/decisions/018-benchmark-method.md).
 * Disk bytes are the block device's sectors written: system-wide, so run it on a quiet machine, and
 * not on tmpfs (it has none). A measurement: it never fails on a figure.
 *
 *   tsx bench/put-bytes-window.ts <edgetable|raw-lmdb|...> [loadRounds=110] [putRounds=100] [every=10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTENDERS, type ContenderId } from './contenders/index.js';
import { BATCH_SIZE, loadOrder, newReadings, SENSORS } from './workload.js';
import { blockBytesWritten, blockDeviceStatFile } from './proc.js';

const [id = 'edgetable', loadText, putText, everyText] = process.argv.slice(2);
if (!(id in CONTENDERS)) throw new Error(`contender: one of ${Object.keys(CONTENDERS).join(', ')}`);
const loadRounds = Number(loadText ?? 110);
const putRounds = Number(putText ?? 100);
const every = Number(everyText ?? 10);

const contender = CONTENDERS[id as ContenderId]();
const dir = mkdtempSync(join(tmpdir(), 'put-bytes-window-'));
const disk = blockDeviceStatFile(dir);
if (disk === undefined) throw new Error(`${dir} has no block device to count bytes on (tmpfs?)`);
contender.open(dir);
try {
  let batch: unknown[] = [];
  for (const r of loadOrder(loadRounds)) {
    batch.push(contender.prepare(r));
    if (batch.length === BATCH_SIZE) {
      contender.putBatch(batch);
      batch = [];
    }
  }
  if (batch.length > 0) contender.putBatch(batch);

  // The bench's 'put' workload writes its new readings this far past the loaded ones.
  const firstIndex = 100_000;
  const start = blockBytesWritten(disk)!;
  let stretchStart = start;
  for (let round = 0; round < putRounds; round++) {
    for (const input of newReadings(firstIndex + round, SENSORS).map((r) => contender.prepare(r))) contender.putItem(input);
    if ((round + 1) % every === 0 || round + 1 === putRounds) {
      const now = blockBytesWritten(disk)!;
      const stretchRounds = (round % every) + 1;
      console.log(JSON.stringify({
        contender: id,
        loadRounds,
        rounds: `${round + 2 - stretchRounds}-${round + 1}`,
        bytesPerPut: Math.round((now - stretchStart) / (stretchRounds * SENSORS)),
        runningBytesPerPut: Math.round((now - start) / ((round + 1) * SENSORS)),
      }));
      stretchStart = now;
    }
  }
} finally {
  contender.close();
  rmSync(dir, { recursive: true, force: true });
}
