/**
 * old-generation.ts: which node flags count as the user's choice of old-generation growth, and
 * that the limit keeps the old generation smaller under a load that promotes garbage.
 */
import { describe, expect, it } from 'vitest';
import { inFreshNode } from './fresh-node.js';
import { limitOldGenerationGrowth, oldGenerationConfigured } from '../src/old-generation.js';

describe('oldGenerationConfigured', () => {
  it('sees growth flags in execArgv and NODE_OPTIONS, spelled with - or _', () => {
    expect(oldGenerationConfigured(['--heap-growing-percent=20'], '')).toBe(true);
    expect(oldGenerationConfigured([], '--enable-source-maps --heap_growing_percent=80')).toBe(true);
    expect(oldGenerationConfigured(['--predictable-gc-schedule'], '')).toBe(true);
    expect(oldGenerationConfigured([], '--optimize-for-size')).toBe(true);
  });

  it('ignores other flags, the old generation\'s size limit among them', () => {
    expect(oldGenerationConfigured(['--max-old-space-size=256', '--max-semi-space-size=2'], '')).toBe(false);
    expect(oldGenerationConfigured([], '')).toBe(false);
  });
});

describe('limitOldGenerationGrowth', () => {
  it('leaves V8 alone when node was given a growth flag', () => {
    expect(limitOldGenerationGrowth(['--heap-growing-percent=10'], '')).toBe(false);
  });

  it('keeps the old generation of a load that promotes garbage well below what V8 lets it reach', () => {
    // Objects that outlive two scavenges and then die, over a small live set: what a write load's
    // caller promotes (number strings kept by V8's number-to-string cache).
    const runs = inFreshNode<{ peak: number; limited: boolean }>(
      'old-generation',
      `import { getHeapSpaceStatistics } from 'node:v8';
       import { limitOldGenerationGrowth } from './old-generation.mjs';
       const limited = process.argv[2] === 'limited' && limitOldGenerationGrowth([], '');
       const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_size;
       const live = [];
       for (let i = 0; i < 500; i++) live.push(new Array(1000).fill(i));
       const ring = new Array(400_000);
       let peak = 0;
       for (let i = 0; i < 3_000_000; i++) {
         ring[i % ring.length] = { i, s: 'x' + i };
         if (i % 10_000 === 0) peak = Math.max(peak, oldSpace());
       }
       console.log(JSON.stringify({ peak, limited, live: live.length }));`,
      ['free', 'limited'],
    );
    expect(runs['limited']!.limited).toBe(true);
    // Measured: 144 MiB free, 66 MiB limited.
    expect(runs['limited']!.peak).toBeLessThan(runs['free']!.peak * 0.7);
  }, 60_000);
});
