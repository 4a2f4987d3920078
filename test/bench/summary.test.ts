import { describe, expect, it } from 'vitest';
import { renderSummary } from '../../bench/summary.js';
import type { ChildResult, Report } from '../../bench/report.js';
import type { GrowthData } from '../../bench/suites/growth.js';
import type { Measurement, WorkloadName } from '../../bench/workloads.js';

const MiB = 2 ** 20;
const measurement = (workload: WorkloadName, value: number): Measurement => ({ workload, unit: 'ops/s', count: 100, ms: 1, value, items: 100 });

function result(contender: 'edgetable' | 'sqlite' | 'raw-lmdb', window: number, storeMiB: number, rssMiB: number): ChildResult {
  return {
    contender,
    name: contender,
    notes: [],
    measurements: [measurement('window', window), measurement('window-1000', window / 10), measurement('put-noflush', 1000)],
    diskBytes: 2 * storeMiB * MiB,
    diskAfterLoadBytes: storeMiB * MiB,
    memory: { afterLoadBytes: rssMiB * MiB, readsPeakBytes: rssMiB * MiB, maxBytes: 2 * rssMiB * MiB },
  };
}

const machine = { node: 'v20', cpu: 'cpu', cores: 2, platform: 'linux', memoryGiB: 8, tmpdir: '/tmp', loadAverage: [0, 0] as [number, number] };
const contenders: Report = {
  date: 'd',
  mode: 'full',
  machine,
  workload: { 'items loaded': 1_000_000 },
  results: [result('edgetable', 2000, 200, 100), result('sqlite', 4000, 100, 50), result('raw-lmdb', 1000, 200, 80)],
  markdown: '',
};
const growth: GrowthData = {
  date: 'g',
  mode: 'full',
  rounds: 3,
  settleMs: 0,
  machine,
  workload: {},
  stages: [1_000_000, 3_000_000, 10_000_000].map((items, s) => ({ items, results: [result('edgetable', 1800 - 100 * s, 250 * (s + 1), 110), result('sqlite', 5000, 100 * (s + 1), 45)] })),
};

const row = (summary: string, first: string) => summary.split('\n').find((line) => line.startsWith(`| ${first} |`));

describe('the summary table (README.md, bench/results/latest.md)', () => {
  it('has the wide window, the puts without a flush, the store after the load and the memory over the load and reads', () => {
    const summary = renderSummary({ contenders: { date: 'd', mode: 'full', data: contenders } });
    expect(row(summary, 'Time window of ~1,000 items, Query (ops/s)')).toContain('| 200 | 400 | 100 | 0.50x | 2.00x |');
    expect(row(summary, 'Single PutItem, no flush per commit (ops/s)')).toContain('| 1,000 | 1,000 | 1,000 | 1.00x | 1.00x |');
    expect(row(summary, 'Store size on disk after the load (MiB)')).toContain('| 200.0 | 100.0 | 200.0 | 2.00x | 1.00x |');
    expect(row(summary, 'Peak anonymous RSS, the load then every read (MiB)')).toContain('| 100.0 | 50.0 | 80.0 | 2.00x | 1.25x |');
    expect(summary).not.toContain('(growth run)');
  });

  it('gains the 10 M row of a growth run on disk: edgetable / better-sqlite3 at the largest size, beside the 1 M run', () => {
    const summary = renderSummary({ contenders: { date: 'd', mode: 'full', data: contenders }, growth: { date: 'g', mode: 'full', data: growth } });
    const split = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim());
    const header = split(summary.split('\n').find((line) => line.startsWith('| readings |'))!);
    const at = (first: string, column: string) => split(row(summary, first)!)[header.indexOf(column)];
    expect(at('1 M (contenders run)', 'Time window of ~100 items, Query')).toBe('0.50x');
    expect(at('10 M (growth run)', 'Time window of ~100 items, Query')).toBe('0.32x');
    expect(at('10 M (growth run)', 'Store on disk')).toBe('2.50x');
    expect(at('10 M (growth run)', 'Peak anonymous RSS')).toBe('2.44x');
  });
});
