/** `edgetable sync` reports a first-sync base read while it runs, and once more when it is done. */
import { afterEach, describe, expect, it } from 'vitest';
import { watchBaseProgress, type BaseProgressWatch } from '../../src/cli/base-progress.js';
import type { SyncStatus, TableSyncStatus } from '../../src/sync/sync-options.js';

let watch: BaseProgressWatch | undefined;
afterEach(() => watch?.stop());

function statusOf(tables: TableSyncStatus[]): SyncStatus {
  return { tables } as unknown as SyncStatus;
}

describe('watchBaseProgress', () => {
  it('prints acknowledged of total, sent and the rate while reading, then a done line; a table never in a base read prints nothing', () => {
    const lines: string[] = [];
    const startedMs = Date.now() - 2000;
    let tables: TableSyncStatus[] = [
      { table: 'Readings', state: 'base', base: { total: 300_000, acked: 120_000, sent: 120_100, itemsPerSecond: 6500, startedMs, done: false } },
      { table: 'Events', state: 'log' },
    ];
    watch = watchBaseProgress(() => statusOf(tables), 60_000, (line) => void lines.push(line));
    expect(lines).toEqual([]); // nothing until the first interval: a short base read stays silent
    watch.step();
    expect(lines).toEqual(['base read Readings: 120000/300000 items acknowledged (40%), 120100 sent, 6500 items/s']);
    tables = [{ table: 'Readings', state: 'log' }, { table: 'Events', state: 'log' }];
    watch.step();
    watch.step();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^base read Readings: done, 300000 items in \d+\.\d s since sync was enabled$/);
  });
});
