/**
 * `edgetable sync`'s progress of first-sync base reads (docs/sync.md): while a table's items that
 * it held when sync was enabled are being sent, one line every `intervalMs`, and one when it is
 * done if any was printed (a short one prints nothing, as progress.ts does), through the sync
 * command's logger (JSON lines on stderr, beside its connection lines), so a long first sync is
 * never silent:
 *
 *   base read Readings: 120000/300000 items acknowledged (40%), 120100 sent, 6500 items/s
 *   base read Readings: done, 300000 items acknowledged in 46.2 s
 */
import type { SyncStatus, TableBaseStatus } from '../sync/sync-options.js';

export type BaseProgressReport = (line: string, fields: { table: string } & Partial<TableBaseStatus>) => void;

export type BaseProgressWatch = {
  /** One look at the status now (what the timer does every interval). */
  step(): void;
  stop(): void;
};

export function watchBaseProgress(status: () => SyncStatus, intervalMs: number, report: BaseProgressReport): BaseProgressWatch {
  /** Tables seen in their base read, with the last figures reported. */
  const reading = new Map<string, TableBaseStatus>();
  const step = (): void => {
    for (const t of status().tables) {
      if (t.state === 'base' && t.base) {
        reading.set(t.table, t.base);
        report(`base read ${t.table}: ${progressText(t.base)}`, { table: t.table, ...t.base });
      } else if (reading.has(t.table)) {
        const last = reading.get(t.table)!;
        reading.delete(t.table);
        const seconds = ((Date.now() - last.startedMs) / 1000).toFixed(1);
        report(`base read ${t.table}: done, ${last.total} items in ${seconds} s since sync was enabled`, { table: t.table, total: last.total, done: true });
      }
    }
  };
  const timer = setInterval(step, intervalMs);
  timer.unref();
  return { step, stop: () => clearInterval(timer) };
}

function progressText(b: TableBaseStatus): string {
  const percent = b.total > 0 ? Math.min(100, Math.floor((b.acked / b.total) * 100)) : 100;
  return `${b.acked}/${b.total} items acknowledged (${percent}%), ${b.sent} sent, ${b.itemsPerSecond} items/s`;
}
