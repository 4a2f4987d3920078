/**
 * The CI-sized soak (issue 9 part 4): 45 s of mixed writes, queries and TTL sweeping synced to a
 * hub through a broker restarted every 10 s (harness/soak-run.ts). Memory growth after warm-up is
 * bounded and the hub ends equal to the device. `npm run soak -- --minutes N` is the long run.
 */
import { describe, expect, it } from 'vitest';
import { runSoak } from './harness/soak-run.js';

const MiB = 1024 * 1024;
const SECONDS = Number(process.env.SOAK_TEST_SECONDS ?? 45);

describe('soak (CI size)', () => {
  it(`${SECONDS} s of writes, queries, TTL sweeps and sync through broker restarts: bounded memory, hub equals device`, async () => {
    const { summary } = await runSoak({
      durationMs: SECONDS * 1000,
      warmupMs: 15_000,
      windowMs: 10_000,
      tolerance: { pct: 0.15, bytes: 24 * MiB },
      restartEveryMs: 10_000,
      brokerDownMs: 1500,
      seed: 45,
    });
    const m = summary.memory;
    console.log(
      `soak ${SECONDS} s (${summary.broker}): ${summary.writes} writes, ${summary.queries} queries, ${summary.brokerRestarts} broker restarts, ` +
        `lag at end ${summary.lagRecordsAtEnd} records, drained in ${summary.drainMs} ms; ` +
        `RSS ${(m.rss.firstAvg / MiB).toFixed(1)} -> ${(m.rss.lastAvg / MiB).toFixed(1)} MiB, heap ${(m.heapUsed.firstAvg / MiB).toFixed(1)} -> ${(m.heapUsed.lastAvg / MiB).toFixed(1)} MiB, ` +
        `settled heap ${(summary.settledHeapAfterWarmup / MiB).toFixed(1)} -> ${(summary.settledHeapAtEnd / MiB).toFixed(1)} MiB`,
    );
    expect(summary.errors, summary.firstErrors.join('; ')).toBe(0);
    expect(summary.brokerRestarts).toBeGreaterThanOrEqual(3);
    expect(summary.writes).toBeGreaterThan(1000);
    expect(summary.ttlItemsWritten).toBeGreaterThan(0);
    expect(summary.hubEqualsDevice).toBe(true);
    expect(summary.deviceItems).toBeGreaterThan(0);
    expect(summary.hubRejected).toBe(0);
    expect(summary.hubGaps).toBe(0);
    expect(summary.settledHeapAtEnd - summary.settledHeapAfterWarmup).toBeLessThan(24 * MiB);
    expect(m.heapUsed.flat).toBe(true);
    expect(m.rss.flat).toBe(true);
  }, SECONDS * 1000 + 150_000);
});
