/**
 * What of the outbox may go up: only change records a power cut cannot take back. In durability
 * 'interval' (the redo log flushed up to syncIntervalMs after a write) and 'relaxed' (a commit's
 * meta page flushed later) a committed write is readable before it is durable; a record sent up
 * then lost here would leave the hub with a change the device no longer has, and the device's
 * next write would reuse its sequence number. So while writes wait for their flush, each shard is
 * sent up to the position it had when a flush that has since completed began; the agent starts
 * that flush (Store.sync) when none is in flight, at most one per FLUSH_GAP_MS (under a steady
 * stream of writes every pump finds some unflushed: a flush per 20 ms poll would undo what
 * 'interval' saves), and is kicked once it made something new sendable. Stores whose every commit
 * is durable ('sync', 'log') send everything, as before.
 */
import type { Replica } from '../replication/replica.js';
import type { ShardPosition } from '../replication/replica-types.js';

type Store = Pick<Replica, 'unflushed' | 'flush'>;

/** The least time between two flushes the agent starts: what it adds to a change's way up, at most. */
export const FLUSH_GAP_MS = 100;

const keyOf = (p: ShardPosition): string => `${p.table.name}\u0000${p.shard}`;

export class DurableOutbox {
  /** Per shard: the nextSeq it had when the last completed flush began (its records before it are durable). */
  private durable = new Map<string, number>();
  private flushing = false;
  private lastFlushAt = -Infinity;

  constructor(
    private readonly store: Store,
    private readonly kick: () => void,
    private readonly failed: (err: unknown) => void,
  ) {}

  /** `positions` as read now, each shard's nextSeq lowered to what is durable; starts a flush if some record is not. */
  sendable(positions: readonly ShardPosition[]): readonly ShardPosition[] {
    if (!this.store.unflushed) {
      this.durable = new Map(positions.map((p) => [keyOf(p), p.header.nextSeq])); // all of it is durable
      return positions;
    }
    if (!this.flushing && performance.now() - this.lastFlushAt >= FLUSH_GAP_MS) this.flush(positions);
    return positions.map((p) => {
      const durable = Math.max(this.durable.get(keyOf(p)) ?? 0, p.header.ackedSeq + 1);
      return durable >= p.header.nextSeq ? p : { ...p, header: { ...p.header, nextSeq: durable } };
    });
  }

  private flush(positions: readonly ShardPosition[]): void {
    const covered = new Map(positions.map((p) => [keyOf(p), p.header.nextSeq]));
    this.flushing = true;
    this.lastFlushAt = performance.now();
    this.store.flush().then(
      () => {
        this.flushing = false;
        const news = [...covered].some(([key, next]) => next > (this.durable.get(key) ?? 0));
        this.durable = covered;
        if (news) this.kick(); // what the flush covered may go up now
      },
      (err: unknown) => {
        this.flushing = false;
        this.failed(err); // the next pump tries again
      },
    );
  }
}
