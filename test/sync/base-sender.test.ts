/**
 * The device's base-read sender (src/sync/base-sender.ts) and durability: a page reads items as
 * they are, so where a committed write can be readable before it is durable ('interval',
 * 'relaxed') a page goes out only once a flush begun after it was read has completed.
 */
import { describe, expect, it } from 'vitest';
import type { BaseReadPage, BaseReadPort, BaseReadProgress } from '../../src/replication/replica-types.js';
import { BaseSender, type BaseSenderOptions } from '../../src/sync/base-sender.js';

const TABLE_ID = 't-1';
const progress: BaseReadProgress = { tableId: TABLE_ID, total: 2, acked: 0, startedMs: 0, done: false };
const page: BaseReadPage = { tableId: TABLE_ID, page: 1, records: [{ seq: 1_000_001, bytes: new Uint8Array([1, 2, 3]) }], cursor: { pk: 0 } as never, last: true };

const port: BaseReadPort = {
  begin: () => Promise.resolve(progress),
  progress: () => progress,
  readPage: () => page,
  commit: () => Promise.resolve({ ...progress, acked: 1, done: true }),
};

/** A sender whose flushes the test settles by hand; `published` counts what reached the link. */
function sender(durable: 'now' | 'later') {
  const flushes: { resolve: () => void; reject: (e: Error) => void }[] = [];
  const errors: unknown[] = [];
  let published = 0;
  const options: BaseSenderOptions = {
    deviceId: 'd1',
    incarnation: 'i1',
    ackTimeoutMs: 60_000,
    batchMaxRecords: 100,
    batchMaxBytes: 1 << 20,
    compression: 'none',
    topic: (table, shard) => `et/d1/${table}/${shard}`,
    publish: () => ((published += 1), true),
    kick: () => {},
    onError: (err) => errors.push(err),
    whenDurable: () => (durable === 'now' ? null : new Promise<void>((resolve, reject) => flushes.push({ resolve, reject }))),
  };
  return { base: new BaseSender(port, options), flushes, errors, published: () => published };
}

const turn = () => new Promise((r) => setImmediate(r));

async function begun(base: BaseSender): Promise<void> {
  base.sendDue('Readings', TABLE_ID, 0); // begins the session
  await turn();
}

describe('a base page and the durability of what it read', () => {
  it('goes out at once when every committed write is durable', async () => {
    const s = sender('now');
    await begun(s.base);
    s.base.sendDue('Readings', TABLE_ID, 1);
    expect(s.published()).toBe(1);
  });

  it('waits for a flush begun after the page was read, then goes out', async () => {
    const s = sender('later');
    await begun(s.base);
    s.base.sendDue('Readings', TABLE_ID, 1);
    expect(s.flushes).toHaveLength(1);
    expect(s.published()).toBe(0);
    s.base.sendDue('Readings', TABLE_ID, 2); // a pass meanwhile sends nothing and starts no second flush
    expect(s.published()).toBe(0);
    expect(s.flushes).toHaveLength(1);
    s.flushes[0]!.resolve();
    await turn();
    s.base.sendDue('Readings', TABLE_ID, 3);
    expect(s.published()).toBe(1);
  });

  it('after a failed flush, begins another on the next pass and sends only once one completed', async () => {
    const s = sender('later');
    await begun(s.base);
    s.base.sendDue('Readings', TABLE_ID, 1);
    s.flushes[0]!.reject(new Error('EIO'));
    await turn();
    expect(s.errors).toHaveLength(1);
    s.base.sendDue('Readings', TABLE_ID, 2);
    expect(s.flushes).toHaveLength(2);
    expect(s.published()).toBe(0);
    s.flushes[1]!.resolve();
    await turn();
    s.base.sendDue('Readings', TABLE_ID, 3);
    expect(s.published()).toBe(1);
  });
});
