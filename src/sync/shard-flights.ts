/**
 * The batches in flight, one at most per shard (keys from shard-key.ts), and when a shard may send
 * again after a 'retry' ack or a conflict recheck. A batch unacknowledged after ackTimeoutMs may go
 * again from the cursor (the hub is idempotent).
 */
import { isShardOf } from './shard-key.js';

type InFlight = { readonly lastSeq: number; readonly sentAt: number };

export class ShardFlights {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly retryAt = new Map<string, number>();

  constructor(private readonly ackTimeoutMs: number) {}

  has(key: string): boolean {
    return this.inFlight.has(key);
  }

  /** No batch in flight younger than ackTimeoutMs and no retry time ahead. */
  maySend(key: string, now: number): boolean {
    const flight = this.inFlight.get(key);
    if (flight && now - flight.sentAt < this.ackTimeoutMs) return false;
    return (this.retryAt.get(key) ?? 0) <= now;
  }

  sent(key: string, lastSeq: number, now: number): void {
    this.inFlight.set(key, { lastSeq, sentAt: now });
  }

  /** An ack up to `seq` ends the flight it covers. */
  acked(key: string, seq: number): void {
    const flight = this.inFlight.get(key);
    if (flight && seq >= flight.lastSeq) this.inFlight.delete(key);
  }

  /** The shard's batch goes again, not before `atMs`. */
  retryAfter(key: string, atMs: number): void {
    this.inFlight.delete(key);
    this.retryAt.set(key, atMs);
  }

  /** The table's batches in flight go again, not before `atMs`. */
  retryTableAfter(table: string, atMs: number): void {
    for (const key of [...this.inFlight.keys()]) {
      if (!isShardOf(key, table)) continue;
      this.inFlight.delete(key);
      this.retryAt.set(key, atMs);
    }
  }

  /** The table's batches in flight are forgotten (sent again when due). */
  dropTable(table: string): void {
    for (const key of [...this.inFlight.keys()]) if (isShardOf(key, table)) this.inFlight.delete(key);
  }

  /** Everything of the table is forgotten, retry times too (its stream is gone). */
  forgetTable(table: string): void {
    for (const key of [...this.inFlight.keys(), ...this.retryAt.keys()]) {
      if (isShardOf(key, table)) {
        this.inFlight.delete(key);
        this.retryAt.delete(key);
      }
    }
  }

  clear(): void {
    this.inFlight.clear();
    this.retryAt.clear();
  }
}
