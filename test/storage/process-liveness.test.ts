import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isAlive } from '../../src/storage/process-liveness.js';

describe('isAlive', () => {
  it('is true for a running process, this one included', () => {
    expect(isAlive(process.pid)).toBe(true);
  });

  it('is false for a process that has ended and been reaped', () => {
    const { pid } = spawnSync(process.execPath, ['-e', '0']);
    expect(isAlive(pid!)).toBe(false);
  });

  it('is false for a zombie: ended, not yet reaped by its parent, though signal 0 still reaches it', async () => {
    // The shell starts `true` in the background, prints its pid and becomes `sleep`, which never reaps it.
    const parent = spawn('sh', ['-c', 'true & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = (await once(parent.stdout, 'data')) as [Buffer];
      const zombie = Number(line.toString().trim());
      for (let i = 0; i < 100 && isAlive(zombie); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(() => process.kill(zombie, 0)).not.toThrow();
      expect(isAlive(zombie)).toBe(false);
    } finally {
      parent.kill();
    }
  });
});
