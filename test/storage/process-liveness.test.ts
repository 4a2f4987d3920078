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
    // The shell starts a short sleep in the background, prints its pid and becomes `sleep 10`,
    // which never reaps it. The child outlives the exec (a shell may reap a child that ended
    // before it execs).
    const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 10'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = (await once(parent.stdout, 'data')) as [Buffer];
      const zombie = Number(line.toString().trim());
      for (let i = 0; i < 250 && isAlive(zombie); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(() => process.kill(zombie, 0)).not.toThrow();
      expect(isAlive(zombie)).toBe(false);
    } finally {
      parent.kill();
    }
  });
});
