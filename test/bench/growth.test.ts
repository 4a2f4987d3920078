import { describe, expect, it } from 'vitest';
import { runGrowthSuite, GROWTH_STAGES, type GrowthData } from '../../bench/suites/growth.js';

describe('the growth suite (--suite growth --size tiny)', () => {
  it('grows each contender’s store through the sizes and measures every workload at each, reads seeing the grown store', async () => {
    const report = await runGrowthSuite({ quick: true, size: 'tiny', contenders: ['raw-lmdb', 'sqlite'], workloads: ['batch', 'window-1000'], rounds: 1, log: () => {} });
    const data = report.data as GrowthData;
    expect(data.stages.map((s) => s.items)).toEqual(GROWTH_STAGES.tiny.map((rps) => rps * 1000));
    for (const [s, stage] of data.stages.entries()) {
      const rps = GROWTH_STAGES.tiny[s]!;
      const added = (rps - (GROWTH_STAGES.tiny[s - 1] ?? 0)) * 1000;
      for (const result of stage.results) {
        const batch = result.measurements.find((m) => m.workload === 'batch')!;
        const wide = result.measurements.find((m) => m.workload === 'window-1000')!;
        // Each stage loads only the readings it adds; a window spans every reading a sensor has by then.
        expect(batch.items).toBe(added);
        expect(wide.items).toBe(wide.count * rps);
        expect(result.diskAfterLoadBytes).toBeGreaterThan(0);
        expect(result.memory!.readsPeakBytes).toBeGreaterThanOrEqual(result.memory!.afterLoadBytes);
        expect(result.memory!.maxBytes).toBeGreaterThanOrEqual(result.memory!.readsPeakBytes!);
      }
    }
    const disk = (s: number, c: number) => data.stages[s]!.results[c]!.diskAfterLoadBytes!;
    for (const c of [0, 1]) expect(disk(2, c)).toBeGreaterThan(disk(0, c));
    expect(data.stages.at(-1)!.results.every((r) => Number.isFinite(r.diskBytes))).toBe(true);
    expect(report.markdown).toContain('At 6,000 readings:');
    expect(report.markdown).toContain('raw node-lmdb/sqlite');
    expect(report.markdown).toMatch(/\| Store size on disk after the load \(MiB\) \| [\d.]+ \| [\d.]+ \| [\d.]+x \|/);
  });
});
