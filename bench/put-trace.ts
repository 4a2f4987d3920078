/**
 * Per-operation cost of durable writes, for strace and --cpu-prof: loads `loaded` readings into
 * one contender, warms up, then runs `count` single puts (or batches of 25) between two marker
 * writes to /dev/null ("MARK-BEGIN"/"MARK-END"), so a trace of the whole process can be cut to the
 * measured part. Prints wall and CPU (user, system) microseconds per operation as one JSON line.
 *
 *   tsx bench/put-trace.ts <contender> <single|batch> [loaded] [count]
 *
 * `contender`: an id of contenders/index.ts, or edgetable-interval / edgetable-interval-held
 * (durability 'interval', the second with logWritesPerCommit HELD_WRITES_PER_COMMIT).
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Contender } from './contender.js';
import { createContender as edgetable } from './contenders/edgetable.js';
import { CONTENDERS, HELD_WRITES_PER_COMMIT } from './contenders/index.js';
import { BATCH_SIZE, loadOrder, newReadings, SENSORS } from './workload.js';

const [id = 'edgetable', mode = 'single', loadedText, countText] = process.argv.slice(2);
const loaded = Number(loadedText ?? 20_000);
const count = Number(countText ?? (mode === 'batch' ? 400 : 2000));

const CHOICES: Record<string, () => Contender> = {
  ...CONTENDERS,
  'edgetable-interval': () => edgetable('interval') as Contender,
  'edgetable-interval-held': () => edgetable('interval', HELD_WRITES_PER_COMMIT) as Contender,
};
const make = CHOICES[id];
if (!make) throw new Error(`unknown contender ${id}: one of ${Object.keys(CHOICES).join(', ')}`);
const contender = make();
const dir = mkdtempSync(join(process.env.PUT_TRACE_DIR ?? tmpdir(), 'put-trace-'));
contender.open(dir);
const load: unknown[] = [];
for (const r of loadOrder(Math.ceil(loaded / SENSORS))) {
  if (load.length >= loaded) break;
  load.push(contender.prepare(r));
}
for (let i = 0; i < load.length; i += BATCH_SIZE) contender.putBatch(load.slice(i, i + BATCH_SIZE));
const per = mode === 'batch' ? BATCH_SIZE : 1;
const warmInputs = newReadings(300_100, 100 * per).map((r) => contender.prepare(r));
const inputs = newReadings(100_000, count * per).map((r) => contender.prepare(r));
const ops = (list: unknown[], fn: (i: number) => void) => {
  for (let i = 0; i < list.length / per; i++) fn(i);
};
const step = (list: unknown[]) => (i: number) =>
  mode === 'batch' ? contender.putBatch(list.slice(i * per, (i + 1) * per)) : contender.putItem(list[i]);
ops(warmInputs, step(warmInputs));
/** Nanoseconds the main thread has been on a CPU (schedstat), apart from the process's other threads. */
const mainThreadNs = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
const marker = openSync('/dev/null', 'w');
writeSync(marker, 'MARK-BEGIN');
const cpu = process.cpuUsage();
const mainBefore = mainThreadNs();
const started = process.hrtime.bigint();
ops(inputs, step(inputs));
const wall = Number(process.hrtime.bigint() - started) / 1e3;
const used = process.cpuUsage(cpu);
const mainUs = (mainThreadNs() - mainBefore) / 1e3;
writeSync(marker, 'MARK-END');
closeSync(marker);
contender.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ contender: id, mode, loaded, count, wallUs: +(wall / count).toFixed(1), userUs: +(used.user / count).toFixed(1), systemUs: +(used.system / count).toFixed(1), mainThreadCpuUs: +(mainUs / count).toFixed(1) }));
