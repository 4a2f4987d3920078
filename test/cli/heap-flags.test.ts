/**
 * Which node flags bin/edgetable.js restarts a command with (src/cli/heap-flags.ts): the heap
 * settings for long-running commands, never for short ones, never twice, and never over flags
 * the user gave node already.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_FLAGS, HEAP_CHILD_ENV, HEAP_FLAGS_ENV, heapRelaunchFlags } from '../../src/cli/heap-flags.js';

describe('heapRelaunchFlags', () => {
  it.each(['serve', 'bridge', 'sync', 'hub', 'import'])('restarts %s with the default heap flags', (command) => {
    expect(heapRelaunchFlags([command, '--path', '/data'], {}, [])).toEqual([...DEFAULT_HEAP_FLAGS]);
  });

  it.each([[['get', 'T', '{}']], [['tables']], [['--version']], [[]]])('runs %j in this process: not worth a second start', (argv) => {
    expect(heapRelaunchFlags(argv, {}, [])).toBeUndefined();
  });

  it('never restarts the restarted child', () => {
    expect(heapRelaunchFlags(['serve'], { [HEAP_CHILD_ENV]: '1' }, [])).toBeUndefined();
  });

  it('keeps flags given to node already, on its command line or in NODE_OPTIONS (as the systemd units set)', () => {
    expect(heapRelaunchFlags(['serve'], {}, ['--max-semi-space-size=4'])).toBeUndefined();
    expect(heapRelaunchFlags(['serve'], {}, ['--max_semi_space_size=4'])).toBeUndefined();
    expect(heapRelaunchFlags(['serve'], { NODE_OPTIONS: '--enable-source-maps --max-semi-space-size=1' }, [])).toBeUndefined();
  });

  it(`takes its flags from ${HEAP_FLAGS_ENV}; empty means Node's defaults`, () => {
    expect(heapRelaunchFlags(['serve'], { [HEAP_FLAGS_ENV]: ' --max-semi-space-size=1  --max-old-space-size=96 ' }, [])).toEqual(['--max-semi-space-size=1', '--max-old-space-size=96']);
    expect(heapRelaunchFlags(['serve'], { [HEAP_FLAGS_ENV]: '' }, [])).toBeUndefined();
    expect(heapRelaunchFlags(['serve'], { [HEAP_FLAGS_ENV]: '--max-old-space-size=96' }, ['--max-old-space-size=128'])).toBeUndefined();
  });
});
