/**
 * The async iterator's bounded buffer (src/observe/change-iterator.ts): 'error' ends the
 * iteration with ObserveOverflowError and unsubscribes; 'drop-oldest' keeps the newest changes and
 * tells the consumer how many it lost. No change is lost silently.
 */
import { describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../src/observe/change-feed.js';
import { ChangeIterator, ObserveOverflowError } from '../../src/observe/change-iterator.js';
import type { PendingChange } from '../../src/observe/table-change.js';

const change = (id: string): PendingChange => ({ eventName: 'INSERT', tableName: 'T', origin: 'local', dynamodb: { ApproximateCreationDateTime: 0, Keys: { id: { S: id } }, NewImage: { id: { S: id } }, SizeBytes: 3 } });
const delivered = () => new Promise((resolve) => setImmediate(resolve));

async function take(it: ChangeIterator, n: number): Promise<{ id: string; droppedBefore?: number }[]> {
  const out: { id: string; droppedBefore?: number }[] = [];
  for (let i = 0; i < n; i++) {
    const { value } = await it.next();
    out.push({ id: (value!.dynamodb.Keys.id as { S: string }).S, ...(value!.droppedBefore ? { droppedBefore: value!.droppedBefore } : {}) });
  }
  return out;
}

describe('ChangeIterator', () => {
  it('a consumer waiting for a change gets it as soon as it is published', async () => {
    const feed = new ChangeFeed();
    const it = new ChangeIterator(feed, 'T');
    const next = it.next();
    feed.publish([change('a')]);
    expect((await next).value?.dynamodb.Keys).toEqual({ id: { S: 'a' } });
  });

  it("whenFull 'error': the change that does not fit ends the iteration with ObserveOverflowError and unsubscribes", async () => {
    const feed = new ChangeFeed();
    const it = new ChangeIterator(feed, 'T', { bufferSize: 3 });
    feed.publish(['a', 'b', 'c', 'd'].map(change));
    await delivered();
    expect(feed.observes('T')).toBe(false);
    await expect(it.next()).rejects.toBeInstanceOf(ObserveOverflowError);
    await expect(it.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it('a buffer exactly full does not overflow', async () => {
    const feed = new ChangeFeed();
    const it = new ChangeIterator(feed, 'T', { bufferSize: 3 });
    feed.publish(['a', 'b', 'c'].map(change));
    await delivered();
    expect(await take(it, 3)).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
  });

  it("whenFull 'drop-oldest': keeps the newest, and the first change after a loss says how many were dropped", async () => {
    const feed = new ChangeFeed();
    const it = new ChangeIterator(feed, 'T', { bufferSize: 2, whenFull: 'drop-oldest' });
    feed.publish(['a', 'b', 'c', 'd', 'e'].map(change));
    await delivered();
    expect(await take(it, 2)).toEqual([{ id: 'd', droppedBefore: 3 }, { id: 'e' }]);
    feed.publish([change('f')]);
    expect(await take(it, 1)).toEqual([{ id: 'f' }]);
  });

  it('close() unsubscribes and ends a pending next()', async () => {
    const feed = new ChangeFeed();
    const it = new ChangeIterator(feed, 'T');
    const next = it.next();
    it.close();
    await expect(next).resolves.toEqual({ value: undefined, done: true });
    expect(feed.observes('T')).toBe(false);
  });
});
