/**
 * Progress of a long operation (import, export, verify, a GSI backfill, scan --all, backup) on
 * stderr, never stdout, so piped output stays clean:
 * - on a terminal, one line redrawn in place at most every TTY_REDRAW_MS: a bar and a percentage
 *   when the total is known (`backup [#######-------------] 35% 12.0/34.3 MB`), else a count;
 * - otherwise (a pipe, a log, a service), one line every io.progressIntervalMs (default 5 s) while
 *   it runs, and a last line when it ends, only if it ran long enough to print one.
 */
import type { CliIo } from './cli-io.js';

export const TTY_REDRAW_MS = 100;
export const PROGRESS_LINE_INTERVAL_MS = 5000;
const BAR_WIDTH = 24;

export type Progress = {
  /** `done` units so far (and the total, when it became known or changed). */
  update(done: number, total?: number): void;
  /** Draws the final figure and ends the line. */
  end(done: number): void;
};

export type ProgressOptions = {
  readonly total?: number;
  /** `items`, `tables`, or `bytes` (shown as MB). */
  readonly unit: string;
};

export function startProgress(io: CliIo, label: string, options: ProgressOptions): Progress {
  const started = Date.now();
  const interval = io.errIsTty ? TTY_REDRAW_MS : (io.progressIntervalMs ?? PROGRESS_LINE_INTERVAL_MS);
  let total = options.total;
  let last = io.errIsTty ? 0 : started;
  let drawn = false;
  const draw = (done: number, final: boolean): void => {
    const text = `${label}${formatFigures(done, total, options.unit)}`;
    if (io.errIsTty) io.err(`\r${text}${final ? '\n' : ''}`);
    else io.err(`${text}${final ? ` (done in ${((Date.now() - started) / 1000).toFixed(1)} s)` : ''}\n`);
    drawn = true;
  };
  return {
    update(done, newTotal) {
      if (newTotal !== undefined) total = newTotal;
      const now = Date.now();
      if (now - last < interval) return;
      last = now;
      draw(done, false);
    },
    end(done) {
      if (drawn) draw(done, true);
    },
  };
}

function formatFigures(done: number, total: number | undefined, unit: string): string {
  const amount = (n: number): string => (unit === 'bytes' ? `${(n / 1e6).toFixed(1)}` : String(n));
  const unitText = unit === 'bytes' ? 'MB' : unit;
  if (total === undefined || total <= 0) return `: ${amount(done)} ${unitText}`;
  const fraction = Math.min(1, done / total);
  const filled = Math.round(fraction * BAR_WIDTH);
  return ` [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}% ${amount(done)}/${amount(total)} ${unitText}`;
}
