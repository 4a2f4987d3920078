/**
 * The bridge's source -> device table (src/bridge/recent-sources.ts) stays bounded: a fleet whose
 * nodes get a new UDP port at every restart sends from ever new sources.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RECENT_SOURCES, RecentSources } from '../../src/bridge/recent-sources.js';

describe('RecentSources', () => {
  it('holds at most its limit after many distinct sources, keeping the most recently heard', () => {
    const sources = new RecentSources();
    for (let i = 0; i < DEFAULT_RECENT_SOURCES * 10; i++) sources.heard(`udp:10.0.${i >> 8}.${i & 255}:${40000 + (i % 1000)}`, `n${i % 50}`);
    expect(sources.size).toBe(DEFAULT_RECENT_SOURCES);
    const last = DEFAULT_RECENT_SOURCES * 10 - 1;
    expect(sources.deviceOf(`udp:10.0.${last >> 8}.${last & 255}:${40000 + (last % 1000)}`)).toBe(`n${last % 50}`);
    expect(sources.deviceOf('udp:10.0.0.0:40000')).toBeUndefined();
  });

  it('forgets the least recently heard source first: a source heard again is kept', () => {
    const sources = new RecentSources(3);
    sources.heard('a', 'n1');
    sources.heard('b', 'n2');
    sources.heard('c', 'n3');
    sources.heard('a', 'n1'); // heard again: now the newest
    sources.heard('d', 'n4');
    expect([sources.deviceOf('a'), sources.deviceOf('b'), sources.deviceOf('c'), sources.deviceOf('d')]).toEqual(['n1', undefined, 'n3', 'n4']);
    expect(sources.size).toBe(3);
  });

  it('maps a source to the device it sent for last', () => {
    const sources = new RecentSources(2);
    sources.heard('serial:/dev/ttyUSB0', 'n1');
    sources.heard('serial:/dev/ttyUSB0', 'n2');
    expect(sources.deviceOf('serial:/dev/ttyUSB0')).toBe('n2');
    expect(sources.size).toBe(1);
  });
});
