/**
 * The fleet test (issue 43's proof): `npm run fleet -- --devices N --minutes M --seed S`.
 * One hub forwarding to dynalite, N devices on two-way, up-only and hub-created tables with
 * overlapping partition subscriptions, a seeded schedule of writes and chaos (fleet-schedule.ts),
 * then the checks (fleet-checks.ts). Prints the summary line
 *   devices N, writes W, chaos events C, divergent items D, lost L
 * with throughput and catch-up times, and the first findings of every failed check; exits 0 only
 * when D = 0, L = 0 and every check held (quiescence reached, dead letters exact).
 */
import { FLEET_USAGE, FleetUsageError, parseFleetArgs, type FleetOptions } from './fleet-options.js';
import { keysNamed } from './fleet-checks.js';
import { runFleet, type FleetReport } from './fleet-run.js';

const SHOWN = 8;

export function summarize(o: FleetOptions, r: FleetReport): { lines: string[]; ok: boolean } {
  const { verdict } = r;
  const events = Object.values(r.chaos).reduce((a, b) => a + b, 0);
  const divergent = keysNamed(verdict.divergent);
  const lost = keysNamed(verdict.lost);
  const t = r.throughput.figures();
  const rate = (n: number) => `${n} records (${(n / t.seconds).toFixed(1)}/s)`;
  const sorted = [...r.catchUpMs].sort((a, b) => a - b);
  const pct = (p: number) => (sorted.length === 0 ? '-' : `${(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! / 1000).toFixed(1)} s`);
  const lines = [
    `devices ${o.devices}, writes ${r.writes.acked}, chaos events ${events}, divergent items ${divergent}, lost ${lost}`,
    `seed ${o.seed}, ${o.minutes} min, ${o.inProcess ? 'in-process' : 'process'} devices, broker ${process.env.MQTT_URL ?? 'aedes (child process)'}; writes ${JSON.stringify(r.writes)}`,
    `items compared (hub / endpoint / all devices): ${Object.entries(r.items).map(([t, n]) => `${t} ${n.hub} / ${n.endpoint} / ${n.devices}`).join(', ')}`,
    `chaos ${JSON.stringify(r.chaos)}${Object.keys(r.chaosSkipped).length > 0 ? `, skipped ${JSON.stringify(r.chaosSkipped)}` : ''}`,
    `throughput over ${t.seconds.toFixed(0)} s: device to hub ${rate(t.up)}, hub to devices ${rate(t.down)}, hub to endpoint ${rate(t.endpoint)}`,
    `catch-up after reconnect or re-flash (${sorted.length}): min ${pct(0)}, median ${pct(0.5)}, max ${pct(1)}; quiescence ${r.quiescence.reached ? `after ${(r.quiescence.ms / 1000).toFixed(1)} s` : `NOT reached: ${r.quiescence.missing}`}`,
  ];
  if (r.secondHub) {
    const s = r.secondHub;
    lines.push(`second hub: ${s.started ? `started, applied ${s.recordsApplied} records, sent ${s.downRecordsSent} down` : 'did not start'}${s.lastError ? `, lastError ${s.lastError}` : ''}${s.status ? `, status ${s.status}` : ''}${!s.started && s.stderr ? `, stderr ${s.stderr}` : ''}`);
  }
  if (r.hubPresence) lines.push(`hub (at the end): ${r.hubPresence}`);
  const show = (title: string, items: readonly string[]) => {
    if (items.length === 0) return;
    lines.push(`${title} (${items.length}):`);
    for (const x of items.slice(0, SHOWN)) lines.push(`  ${x}`);
    if (items.length > SHOWN) lines.push(`  ... and ${items.length - SHOWN} more`);
  };
  show('LOST (hub against the acknowledged writes)', verdict.lost.map((f) => `${f.table}: ${f.text}`));
  show('DIVERGENT (devices and endpoint against the hub)', verdict.divergent.map((f) => `${f.table}: ${f.text}`));
  show('DEAD LETTERS', verdict.deadLetters);
  const ok = divergent === 0 && lost === 0 && verdict.deadLetters.length === 0 && r.quiescence.reached;
  lines.push(ok ? 'fleet: PASS' : `fleet: FAIL (replay: npm run fleet -- --devices ${o.devices} --minutes ${o.minutes} --seed ${o.seed}${o.inProcess ? ' --in-process' : ''})`);
  return { lines, ok };
}

async function main(): Promise<number> {
  let o: FleetOptions;
  try {
    o = parseFleetArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof FleetUsageError)) throw err;
    console.error(`${err.message}\n${FLEET_USAGE}`);
    return 2;
  }
  const started = Date.now();
  const log = (line: string) => console.error(`[fleet ${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);
  const report = await runFleet(o, log);
  const { lines, ok } = summarize(o, report);
  for (const l of lines) console.log(l);
  if (o.keep) console.log(`stores kept in ${report.dir}`);
  return ok ? 0 : 1;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  main().then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`fleet: ${err.stack ?? err.message}`);
      process.exit(1);
    },
  );
}
