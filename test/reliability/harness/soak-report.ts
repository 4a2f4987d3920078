/**
 * The soak run's figures: memory samples (one a second), the flatness verdict, and the files
 * (`soak.csv`, `soak.svg`, `soak.json`). The chart is hand-written SVG: RSS and heap in MiB
 * against minutes, broker outages as grey bands, the warm-up shaded.
 *
 * Flat: for RSS and for heap used, the average over the last window is at most the average over
 * the first window after warm-up plus max(`tolerancePct` of it, `toleranceBytes`). RSS is also
 * split into its anonymous part (heap, native allocations: where a leak grows) and its
 * file-backed part (the pages of the two stores' mapped files the process has touched, which grow
 * with the files), so a growth can be told apart; each gets a verdict the same way.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type MemorySample = {
  /** Milliseconds since the run started. */
  readonly t: number;
  readonly rss: number;
  /** RssAnon of /proc/self/status: heap and native allocations (RSS where the platform has no such figure). */
  readonly rssAnon: number;
  /** RssFile: mapped file pages resident (the stores' data.mdb among them); NaN where unknown. */
  readonly rssFile: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly writes: number;
  readonly queries: number;
  readonly lagRecords: number;
  readonly brokerUp: boolean;
};

export type Tolerance = { readonly pct: number; readonly bytes: number };

export type MemoryVerdict = {
  readonly firstAvg: number;
  readonly lastAvg: number;
  readonly growth: number;
  readonly allowed: number;
  /** Least-squares slope after warm-up, bytes per minute. */
  readonly slopePerMinute: number;
  readonly flat: boolean;
};

export type MemoryFigures = {
  readonly warmupMs: number;
  readonly windowMs: number;
  readonly tolerance: Tolerance;
  readonly rss: MemoryVerdict;
  readonly rssAnon: MemoryVerdict;
  readonly rssFile: MemoryVerdict;
  readonly heapUsed: MemoryVerdict;
};

export function memoryFigures(samples: readonly MemorySample[], warmupMs: number, windowMs: number, tolerance: Tolerance): MemoryFigures {
  const end = samples.length > 0 ? samples[samples.length - 1]!.t : 0;
  const after = samples.filter((s) => s.t >= warmupMs);
  const first = after.filter((s) => s.t < warmupMs + windowMs);
  const last = after.filter((s) => s.t > end - windowMs);
  const verdict = (pick: (s: MemorySample) => number): MemoryVerdict => {
    const firstAvg = average(first.map(pick));
    const lastAvg = average(last.map(pick));
    const allowed = Math.max(firstAvg * tolerance.pct, tolerance.bytes);
    return { firstAvg, lastAvg, growth: lastAvg - firstAvg, allowed, slopePerMinute: slope(after.map((s) => [s.t / 60_000, pick(s)])), flat: first.length > 0 && last.length > 0 && lastAvg - firstAvg <= allowed };
  };
  return {
    warmupMs,
    windowMs,
    tolerance,
    rss: verdict((s) => s.rss),
    rssAnon: verdict((s) => s.rssAnon),
    rssFile: verdict((s) => s.rssFile),
    heapUsed: verdict((s) => s.heapUsed),
  };
}

function average(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function slope(points: readonly (readonly [number, number])[]): number {
  if (points.length < 2) return 0;
  const mx = average(points.map((p) => p[0]));
  const my = average(points.map((p) => p[1]));
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const MiB = 1024 * 1024;
const mib = (n: number) => (n / MiB).toFixed(1);

export function samplesCsv(samples: readonly MemorySample[]): string {
  const rows = ['seconds,rss_mib,rss_anon_mib,rss_file_mib,heap_used_mib,heap_total_mib,external_mib,array_buffers_mib,writes,queries,lag_records,broker_up'];
  for (const s of samples) {
    rows.push([(s.t / 1000).toFixed(1), mib(s.rss), mib(s.rssAnon), mib(s.rssFile), mib(s.heapUsed), mib(s.heapTotal), mib(s.external), mib(s.arrayBuffers), s.writes, s.queries, s.lagRecords, s.brokerUp ? 1 : 0].join(','));
  }
  return `${rows.join('\n')}\n`;
}

export function samplesSvg(samples: readonly MemorySample[], figures: MemoryFigures, title: string): string {
  const W = 900;
  const H = 420;
  const left = 60;
  const right = 20;
  const top = 56;
  const bottom = 50;
  const pw = W - left - right;
  const ph = H - top - bottom;
  const endMs = Math.max(1, samples.length > 0 ? samples[samples.length - 1]!.t : 1);
  const maxY = Math.max(1, ...samples.map((s) => s.rss)) * 1.1;
  const yStep = niceStep(maxY / MiB / 6);
  const x = (t: number) => left + (t / endMs) * pw;
  const y = (v: number) => top + ph - (v / maxY) * ph;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">${escapeXml(title)}</text>`);
  parts.push(`<rect x="${left}" y="${top}" width="${(x(figures.warmupMs) - left).toFixed(1)}" height="${ph}" fill="#fff3d6"/>`);
  parts.push(`<text x="${left + 4}" y="${top + 14}" fill="#a07000">warm-up</text>`);
  // Broker outages: runs of samples with brokerUp false.
  let downFrom: number | undefined;
  for (const s of samples) {
    if (!s.brokerUp && downFrom === undefined) downFrom = s.t;
    if (s.brokerUp && downFrom !== undefined) {
      parts.push(`<rect x="${x(downFrom).toFixed(1)}" y="${top}" width="${Math.max(1.5, x(s.t) - x(downFrom)).toFixed(1)}" height="${ph}" fill="#dddddd"/>`);
      downFrom = undefined;
    }
  }
  for (let v = 0; v * MiB <= maxY; v += yStep) {
    parts.push(`<line x1="${left}" x2="${left + pw}" y1="${y(v * MiB).toFixed(1)}" y2="${y(v * MiB).toFixed(1)}" stroke="#eeeeee"/>`);
    parts.push(`<text x="${left - 6}" y="${(y(v * MiB) + 4).toFixed(1)}" text-anchor="end">${v}</text>`);
  }
  const minutes = endMs / 60_000;
  const xStep = niceStep(minutes / 10);
  for (let m = 0; m <= minutes + 1e-9; m += xStep) {
    parts.push(`<text x="${x(m * 60_000).toFixed(1)}" y="${top + ph + 18}" text-anchor="middle">${Number(m.toFixed(2))}</text>`);
  }
  parts.push(`<text x="${left + pw / 2}" y="${H - 10}" text-anchor="middle">minutes</text>`);
  parts.push(`<text x="16" y="${top + ph / 2}" text-anchor="middle" transform="rotate(-90 16 ${top + ph / 2})">MiB</text>`);
  parts.push(`<rect x="${left}" y="${top}" width="${pw}" height="${ph}" fill="none" stroke="#999999"/>`);
  const line = (pick: (s: MemorySample) => number, color: string) =>
    `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${samples.map((s) => `${x(s.t).toFixed(1)},${y(pick(s)).toFixed(1)}`).join(' ')}"/>`;
  parts.push(line((s) => s.rss, '#1f77b4'));
  parts.push(line((s) => s.rssAnon, '#2ca02c'));
  parts.push(line((s) => s.heapTotal, '#9ecae1'));
  parts.push(line((s) => s.heapUsed, '#ff7f0e'));
  const legend = [
    ['#1f77b4', `RSS (first ${mib(figures.rss.firstAvg)}, last ${mib(figures.rss.lastAvg)} MiB)`],
    ['#2ca02c', `anonymous RSS (first ${mib(figures.rssAnon.firstAvg)}, last ${mib(figures.rssAnon.lastAvg)} MiB)`],
    ['#9ecae1', 'heap total'],
    ['#ff7f0e', `heap used (first ${mib(figures.heapUsed.firstAvg)}, last ${mib(figures.heapUsed.lastAvg)} MiB)`],
    ['#dddddd', 'broker down'],
  ] as const;
  // Two rows of three: the labels with figures are wide.
  legend.forEach(([color, label], i) => {
    const lx = left + 10 + (i % 3) * 280;
    const ly = 28 + Math.floor(i / 3) * 13;
    parts.push(`<rect x="${lx}" y="${ly}" width="12" height="8" fill="${color}"/><text x="${lx + 16}" y="${ly + 8}" font-size="11">${escapeXml(label)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Writes `<dir>/<name>.csv`, `.svg` and `.json` (the summary); returns their paths. */
export function writeSoakFiles(dir: string, name: string, samples: readonly MemorySample[], figures: MemoryFigures, summary: unknown, title: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files = [join(dir, `${name}.csv`), join(dir, `${name}.svg`), join(dir, `${name}.json`)];
  writeFileSync(files[0]!, samplesCsv(samples));
  writeFileSync(files[1]!, samplesSvg(samples, figures, title));
  writeFileSync(files[2]!, `${JSON.stringify(summary, null, 2)}\n`);
  return files;
}
