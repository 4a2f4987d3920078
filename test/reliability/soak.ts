/**
 * `npm run soak -- --minutes N [--seed S] [--broker auto|mosquitto|aedes] [--restart-every-s 30]
 * [--out bench/results] [--name soak]`: the soak run of harness/soak-run.ts for N minutes. Writes
 * `<out>/<name>.csv` (one memory sample a second), `.svg` (the chart) and `.json` (the summary) and
 * prints the figures. Exit code 1 when memory is not flat, the hub differs from the device, or an
 * operation failed.
 *
 * Flat: after a warm-up of one minute (a fifth of the run when shorter), the last minute's average
 * RSS and heap used are within max(10 %, 16 MiB) of the first minute's.
 */
import { parseArgs } from 'node:util';
import { runSoak } from './harness/soak-run.js';
import { writeSoakFiles } from './harness/soak-report.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string' },
    broker: { type: 'string', default: 'auto' },
    'restart-every-s': { type: 'string', default: '30' },
    out: { type: 'string', default: 'bench/results' },
    name: { type: 'string', default: 'soak' },
  },
});

const minutes = Number(values.minutes);
if (!(minutes > 0)) throw new Error('--minutes must be a positive number');
const durationMs = minutes * 60_000;
const warmupMs = Math.min(60_000, durationMs / 5);
const windowMs = Math.min(60_000, (durationMs - warmupMs) / 3);
const broker = values.broker as 'auto' | 'mosquitto' | 'aedes';
const MiB = 1024 * 1024;
const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;

console.log(`soak: ${minutes} min, warm-up ${warmupMs / 1000} s, windows ${windowMs / 1000} s, broker restart every ${values['restart-every-s']} s`);
const { summary, samples } = await runSoak({
  durationMs,
  warmupMs,
  windowMs,
  tolerance: { pct: 0.1, bytes: 16 * MiB },
  broker,
  restartEveryMs: Number(values['restart-every-s']) * 1000,
  ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
  onSample: (s) => {
    if (Math.round(s.t / 1000) % 30 === 0) {
      console.log(`  ${(s.t / 1000).toFixed(0)} s: rss ${mib(s.rss)}, heap ${mib(s.heapUsed)}, ${s.writes} writes, ${s.queries} queries, lag ${s.lagRecords} records, broker ${s.brokerUp ? 'up' : 'down'}`);
    }
  },
});
const m = summary.memory;
const title = `edgetable soak: ${minutes} min, ${summary.writes} writes, ${summary.brokerRestarts} ${summary.broker} restarts; hub equals device: ${summary.hubEqualsDevice}`;
const files = writeSoakFiles(values.out, values.name, samples, m, summary, title);
console.log(`writes ${summary.writes} (${summary.writeOps} ops), queries ${summary.queries}, errors ${summary.errors}${summary.firstErrors.length ? ` (${summary.firstErrors.join('; ')})` : ''}`);
console.log(`TTL items written ${summary.ttlItemsWritten}, left for the final sweep ${summary.finalSweepDeleted}`);
console.log(`broker (${summary.broker}) restarts ${summary.brokerRestarts}; lag at end ${summary.lagRecordsAtEnd} records / ${summary.lagSecondsAtEnd.toFixed(1)} s; drained in ${summary.drainMs} ms`);
console.log(`hub equals device: ${summary.hubEqualsDevice} (${summary.deviceItems} items), hub rejected ${summary.hubRejected}, gaps ${summary.hubGaps}`);
for (const [name, v] of [['RSS', m.rss], ['  anonymous', m.rssAnon], ['  file-backed', m.rssFile], ['heap used', m.heapUsed]] as const) {
  console.log(`${name}: first ${mib(v.firstAvg)}, last ${mib(v.lastAvg)}, growth ${mib(v.growth)} (allowed ${mib(v.allowed)}), slope ${mib(v.slopePerMinute)}/min -> ${v.flat ? 'flat' : 'NOT FLAT'}`);
}
console.log(`settled heap: after warm-up ${mib(summary.settledHeapAfterWarmup)}, at end ${mib(summary.settledHeapAtEnd)}`);
console.log(`settled anonymous RSS: after warm-up ${mib(summary.settledAnonAfterWarmup)}, at end ${mib(summary.settledAnonAtEnd)}`);
console.log(`wrote ${files.join(', ')}`);
const ok = m.rss.flat && m.heapUsed.flat && summary.hubEqualsDevice && summary.errors === 0;
process.exit(ok ? 0 : 1);
