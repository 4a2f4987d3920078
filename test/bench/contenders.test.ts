import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTENDERS, type ContenderId } from '../../bench/contenders/index.js';
import { reading, timestamp, sensorId } from '../../bench/workload.js';

const withNoFlush = (['edgetable', 'raw-lmdb', 'sqlite'] as const satisfies readonly ContenderId[]);

describe('the contenders’ mode without a flush per commit', () => {
  it.each(withNoFlush)('%s keeps its store across the switch, and what either mode wrote reads back', (id) => {
    const dir = mkdtempSync(join(tmpdir(), `etb-noflush-${id}-`));
    const c = CONTENDERS[id]();
    try {
      c.open(dir);
      c.putBatch([0, 1, 2].map((s) => c.prepare(reading(s, 0))));
      c.setNoFlush!(true);
      c.putItem(c.prepare(reading(3, 0)));
      c.setNoFlush!(false);
      c.putItem(c.prepare(reading(4, 0)));
      for (let s = 0; s < 5; s++) expect(c.getItem({ sensorId: sensorId(s), ts: timestamp(s, 0) })).toBe(1);
      expect(c.scanAll(2, 3)).toBe(4);
      expect(c.scanAll(1000, 1_000_000)).toBe(5);
    } finally {
      c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(['edgetable-log', 'edgetable-log-held'] as const)('%s has none of its own: it is a durability of its own', (id) => {
    expect(CONTENDERS[id]().setNoFlush).toBeUndefined();
  });
});
