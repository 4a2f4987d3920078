/**
 * The in-process feed behind `db.observe` (table-change.ts): listeners per table, and the one
 * queue that delivers committed changes to them.
 *
 * Contract:
 * - The write path (table/write-session.ts) collects the changes of observed tables inside its
 *   txn and hands them to `publish` from the txn's afterCommit callback (storage/txn.ts): an
 *   aborted txn, or an attempt the store re-runs after growing the map, publishes nothing.
 * - Delivery is asynchronous (a microtask after the commit) and in commit order across every
 *   table: one FIFO queue, filled at commit, drained in order. A listener that writes gets its
 *   own change after every change already queued, never re-entrantly inside the one it is handling.
 * - A listener receives the changes committed after it subscribed and before it unsubscribed.
 * - A listener that throws, or returns a promise that rejects, breaks neither the write (already
 *   committed) nor the other listeners: the error goes to its `onError`, else to the log.
 * - Only writes made through this process's engine are seen: another process writing the same
 *   folder is not observed (docs/sync.md, "Observing changes").
 */
import { log } from '../log/logger.js';
import type { PendingChange, TableChange } from './table-change.js';

export type ChangeListener = (change: TableChange) => void | Promise<void>;

/** Told of a listener's error (a throw or a rejected promise) and the change it was handling. */
export type ObserveErrorHandler = (error: unknown, change: TableChange) => void;

type Subscription = { readonly listener: ChangeListener; readonly onError: ObserveErrorHandler | undefined; active: boolean };

type Delivery = { readonly change: TableChange; readonly to: readonly Subscription[] };

export class ChangeFeed {
  private readonly byTable = new Map<string, Set<Subscription>>();
  private readonly queue: Delivery[] = [];
  private scheduled = false;
  private sequence = 0;
  /** Listener errors so far (reported to onError or logged). */
  listenerErrors = 0;
  /** Told when the database closes (change-iterator.ts ends its loop). */
  private readonly closeHandlers = new Set<() => void>();

  /** Whether any listener observes `tableName` (the write path collects changes only then). */
  observes(tableName: string): boolean {
    return this.byTable.has(tableName);
  }

  /** Adds a listener; returns the function that removes it (idempotent). */
  subscribe(tableName: string, listener: ChangeListener, onError?: ObserveErrorHandler): () => void {
    const sub: Subscription = { listener, onError, active: true };
    let set = this.byTable.get(tableName);
    if (!set) this.byTable.set(tableName, (set = new Set()));
    set.add(sub);
    return () => {
      if (!sub.active) return;
      sub.active = false;
      const current = this.byTable.get(tableName);
      current?.delete(sub);
      if (current?.size === 0) this.byTable.delete(tableName);
    };
  }

  /** Registers `fn` to run when the database closes; returns the function that removes it. */
  onClose(fn: () => void): () => void {
    this.closeHandlers.add(fn);
    return () => void this.closeHandlers.delete(fn);
  }

  /** The database closed: changes already queued are still delivered, then iterators end. */
  close(): void {
    const handlers = [...this.closeHandlers];
    this.closeHandlers.clear();
    queueMicrotask(() => {
      for (const fn of handlers) fn();
    });
  }

  /** Queues committed changes, in their commit order, for the listeners subscribed now. */
  publish(changes: readonly PendingChange[]): void {
    for (const pending of changes) {
      const set = this.byTable.get(pending.tableName);
      if (!set) continue;
      this.sequence += 1;
      this.queue.push({ change: Object.freeze({ ...pending, sequence: this.sequence }), to: [...set] });
    }
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.drain());
    }
  }

  private drain(): void {
    this.scheduled = false;
    // A listener's own writes publish onto the end of the queue, so this loop delivers them too, in order.
    for (let delivery = this.queue.shift(); delivery; delivery = this.queue.shift()) {
      for (const sub of delivery.to) {
        if (sub.active) this.call(sub, delivery.change);
      }
    }
  }

  private call(sub: Subscription, change: TableChange): void {
    try {
      const result = sub.listener(change);
      if (result && typeof (result as Promise<void>).then === 'function') {
        (result as Promise<void>).then(undefined, (err: unknown) => this.report(sub, err, change));
      }
    } catch (err) {
      this.report(sub, err, change);
    }
  }

  private report(sub: Subscription, err: unknown, change: TableChange): void {
    this.listenerErrors += 1;
    try {
      if (sub.onError) sub.onError(err, change);
      else log('engine').error({ err, table: change.tableName, sequence: change.sequence }, 'an observe listener failed; the write and the other listeners are unaffected');
    } catch {
      /* an onError that throws is not allowed to break delivery either */
    }
  }
}
