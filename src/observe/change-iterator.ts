/**
 * The async-iterator form of `db.observe(table)`: `for await (const change of db.observe('T'))`.
 * It subscribes when created and unsubscribes when the loop ends (break, return, throw) or on
 * `close()`; when the database closes, the loop ends after the changes delivered before. Changes wait in a bounded buffer while the loop is busy:
 *
 * - `bufferSize` (default 1,024) changes at most;
 * - `whenFull: 'error'` (default): the change that does not fit ends the iteration: the buffer is
 *   dropped, the subscription removed, and the loop's next step throws ObserveOverflowError. The
 *   consumer fell behind and must re-read what it shows (a query) before observing again.
 * - `whenFull: 'drop-oldest'`: the oldest buffered change is discarded, and the next change the
 *   loop receives carries `droppedBefore`, the number discarded since the previous one it received.
 *
 * So no change is ever lost silently.
 */
import { EdgetableError } from '../model/errors.js';
import type { ChangeFeed } from './change-feed.js';
import type { TableChange } from './table-change.js';

export const DEFAULT_OBSERVE_BUFFER_SIZE = 1024;

export type ObserveIteratorOptions = {
  readonly bufferSize?: number;
  readonly whenFull?: 'error' | 'drop-oldest';
};

/** A change from the async iterator, with how many changes the buffer discarded before it. */
export type ObservedChange = TableChange & { readonly droppedBefore?: number };

/** The iterator's consumer fell more than `bufferSize` changes behind (whenFull 'error'). */
export class ObserveOverflowError extends EdgetableError {
  constructor(
    readonly tableName: string,
    readonly bufferSize: number,
  ) {
    super(`observe(${JSON.stringify(tableName)}): more than ${bufferSize} changes waited for the consumer (bufferSize); the iteration ended, re-read the table and observe again`);
  }
}

export class ChangeIterator implements AsyncIterableIterator<ObservedChange> {
  private readonly buffer: ObservedChange[] = [];
  private waiting: ((result: IteratorResult<ObservedChange>) => void) | undefined;
  private readonly unsubscribe: () => void;
  private readonly forgetClose: () => void;
  private done = false;
  private overflow: ObserveOverflowError | undefined;
  private readonly bufferSize: number;
  private readonly whenFull: 'error' | 'drop-oldest';

  constructor(feed: ChangeFeed, private readonly tableName: string, options: ObserveIteratorOptions = {}) {
    this.bufferSize = options.bufferSize ?? DEFAULT_OBSERVE_BUFFER_SIZE;
    this.whenFull = options.whenFull ?? 'error';
    this.unsubscribe = feed.subscribe(tableName, (change) => this.push(change));
    // When the database closes, the loop ends once it has taken what was delivered before.
    this.forgetClose = feed.onClose(() => this.end());
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ObservedChange>> {
    if (this.overflow) {
      const err = this.overflow;
      this.overflow = undefined;
      return Promise.reject(err);
    }
    const change = this.buffer.shift();
    if (change) return Promise.resolve({ value: change, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** Ends the iteration (what `break` in a for-await loop calls). */
  return(): Promise<IteratorResult<ObservedChange>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Unsubscribes; buffered changes are dropped and a pending next() resolves done. */
  close(): void {
    this.end();
    this.buffer.length = 0;
  }

  /** Unsubscribes; buffered changes are still yielded, then the loop ends. */
  private end(): void {
    if (this.done) return;
    this.done = true;
    this.unsubscribe();
    this.forgetClose();
    this.settle({ value: undefined, done: true });
  }

  private push(change: TableChange): void {
    if (this.done) return;
    if (this.waiting) {
      this.settle({ value: change, done: false });
      return;
    }
    if (this.buffer.length >= this.bufferSize) {
      if (this.whenFull === 'error') {
        this.close();
        this.overflow = new ObserveOverflowError(this.tableName, this.bufferSize);
        return;
      }
      // The change now at the head carries every change discarded before it.
      const lost = this.buffer.shift()!;
      this.buffer.push(change);
      const head = this.buffer[0]!;
      this.buffer[0] = { ...head, droppedBefore: (lost.droppedBefore ?? 0) + 1 + (head.droppedBefore ?? 0) };
      return;
    }
    this.buffer.push(change);
  }

  private settle(result: IteratorResult<ObservedChange>): void {
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.(result);
  }
}
