/**
 * Scan speed by page size under edgetable's young-generation hold (src/young-generation.ts): in a
 * compiled child process (as a device runs edgetable: under tsx the loader alone leaves V8's new
 * space larger), loads `items` readings into the bench's edgetable contender, then runs `passes`
 * full Scans with pages of 1,000 and `passes` without a Limit (DynamoDB's 1 MB pages), alternating,
 * and prints items/s of each pass, the semi-space's size after it and the process's anonymous
 * resident memory at that moment (RssAnon, Linux; not VmHWM, which counts file pages too). One
 * child with Node's default flags (the hold on), one with `--max-semi-space-size=16` (which turns
 * the hold off).
 *
 *   tsx bench/scan-page-probe.ts [items=110000] [passes=3]
 *
 * A measurement: it never fails on a figure.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import { execFileSync } from 'node:child_process';
import { compiled } from './compile.js';
import { createContender } from './contenders/edgetable.js';
import { BATCH_SIZE, loadOrder } from './workload.js';

const child = process.argv[2] === '--child';
const [items = 110_000, passes = 3] = process.argv.slice(child ? 3 : 2).map(Number);
if (!child) {
  const entry = compiled('scan-page-probe.ts');
  for (const flags of [[], ['--max-semi-space-size=16']]) {
    execFileSync(process.execPath, [...flags, entry, '--child', String(items), String(passes)], { stdio: 'inherit', timeout: 600_000 });
  }
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'scan-page-probe-'));
const contender = createContender();
contender.open(dir);
const rssAnonMiB = (): number | undefined => {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('RssAnon:'));
  return line === undefined ? undefined : Math.round((Number(line.split(/\s+/)[1]) / 1024) * 10) / 10;
};
const semiSpaceMiB = () => {
  const s = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')!;
  return Math.round(((s.space_used_size + s.space_available_size) / 2 ** 20) * 100) / 100;
};
try {
  let batch: ReturnType<typeof contender.prepare>[] = [];
  let loaded = 0;
  for (const reading of loadOrder(Math.ceil(items / 1000))) {
    batch.push(contender.prepare(reading));
    if (batch.length === BATCH_SIZE) {
      contender.putBatch(batch);
      loaded += batch.length;
      batch = [];
      if (loaded >= items) break;
    }
  }
  for (let pass = 0; pass < passes; pass++) {
    for (const page of [1000, undefined]) {
      const started = process.hrtime.bigint();
      // The contender's scanAll passes its argument as Limit: undefined is no Limit.
      const n = contender.scanAll(page as number, Infinity);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      console.log(JSON.stringify({ pass, page: page ?? '1 MB', items: n, itemsPerSecond: Math.round(n / seconds), semiSpaceMiB: semiSpaceMiB(), rssAnonMiB: rssAnonMiB(), flags: process.execArgv.filter((f) => f.startsWith('--max') || f.startsWith('--no-')) }));
    }
  }
} finally {
  contender.close();
  rmSync(dir, { recursive: true, force: true });
}
