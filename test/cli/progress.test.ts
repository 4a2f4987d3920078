/** Progress on stderr: a bar redrawn in place on a terminal, periodic lines elsewhere, silence for short work. */
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/cli-io.js';
import { startProgress } from '../../src/cli/progress.js';

function io(errIsTty: boolean, progressIntervalMs?: number): CliIo & { text(): string } {
  let err = '';
  return { out: () => undefined, err: (t) => void (err += t), errIsTty, ...(progressIntervalMs !== undefined && { progressIntervalMs }), text: () => err };
}

describe('startProgress', () => {
  it('draws a bar in place on a terminal and ends the line', () => {
    const tty = io(true);
    const p = startProgress(tty, 'backup', { unit: 'bytes', total: 4_000_000 });
    p.update(1_000_000);
    p.end(4_000_000);
    expect(tty.text()).toBe('\rbackup [######------------------] 25% 1.0/4.0 MB\rbackup [########################] 100% 4.0/4.0 MB\n');
  });

  it('counts when the total is unknown', () => {
    const tty = io(true);
    const p = startProgress(tty, 'import T', { unit: 'items' });
    p.update(25);
    p.end(30);
    expect(tty.text()).toBe('\rimport T: 25 items\rimport T: 30 items\n');
  });

  it('prints nothing on a non-terminal for work shorter than the interval', () => {
    const log = io(false);
    const p = startProgress(log, 'verify', { unit: 'tables', total: 3 });
    p.update(1);
    p.update(2);
    p.end(3);
    expect(log.text()).toBe('');
  });

  it('prints whole lines on a non-terminal, and a last one with the duration', () => {
    const log = io(false, 0);
    const p = startProgress(log, 'verify', { unit: 'tables', total: 2 });
    p.update(1);
    p.end(2);
    expect(log.text()).toMatch(/^verify \[############------------\] 50% 1\/2 tables\nverify \[#{24}\] 100% 2\/2 tables \(done in \d+\.\d s\)\n$/);
  });
});
