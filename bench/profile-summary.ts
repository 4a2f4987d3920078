/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25] [within=run,load]`: the functions with
 * the most self time, and the most inclusive ("total") time, from a V8 CPU profile (written by
 * `npm run bench -- --profile`). Only samples under a frame named in `within` count (default: the
 * workload functions in workloads.ts, warm-up included, so the profiler's own work is left out;
 * the timed loop itself is often inlined and then has no frame of its own); GC samples
 * carry no stack and are reported apart. Inclusive time counts a function once per sample even
 * when it recurses. tsx emits each module on one line, so frames are labelled file:line:column.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarize(profile: Profile, top: number, within: readonly string[]): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) => {
    const f = n.callFrame;
    const where = f.url ? `${basename(f.url)}:${f.lineNumber + 1}:${f.columnNumber + 1}` : '';
    return `${f.functionName || '(anonymous)'} ${where}`.trim();
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const stack = (leaf: ProfileNode | undefined) => {
    const out: ProfileNode[] = [];
    for (let n = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) out.push(n);
    return out;
  };
  let all = 0;
  let gc = 0;
  let sampled = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    sampled += dt;
    const leaf = byId.get(id);
    if (!leaf) return;
    if (leaf.callFrame.functionName === '(garbage collector)') gc += dt;
    const frames = stack(leaf);
    if (!frames.some((n) => within.includes(n.callFrame.functionName))) return;
    all += dt;
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + dt);
    const seen = new Set<string>();
    for (const n of frames) {
      const l = label(n);
      if (seen.has(l)) continue;
      seen.add(l);
      total.set(l, (total.get(l) ?? 0) + dt);
    }
  });
  const table = (title: string, m: Map<string, number>) =>
    [`${title}:`, ...[...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => `${((100 * v) / all).toFixed(1).padStart(5)}%  ${k}`)].join('\n');
  const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`;
  return `${ms(all)} under ${within.join('/')}() of ${ms(sampled)} sampled; garbage collector ${ms(gc)} overall (not included)\n${table('self', self)}\n${table('total (inclusive)', total)}\n`;
}

const [file, top, within] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [within]');
process.stdout.write(summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(top ?? 25), (within ?? 'run,load').split(',')));
