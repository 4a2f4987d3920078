/**
 * The writes an ack names as refused under a version rule (counted, kept for status(), the local
 * copies put back to the hub's items), for a clock too far ahead (the same, but put back only in a
 * table received down too, whose future-stamped local version would otherwise shadow the hub's
 * later writes of the key; an up-only table keeps its copy), for this device's write grants
 * (counted and kept; the local copies left alone: the hub tells nothing of a partition the device
 * may not read), or as lost to a far newer version (the hub's item taken).
 */
import type { Replica } from '../replication/replica.js';
import type { ReplicaTable } from '../replication/replica-types.js';
import { toWireItem } from '../model/binary.js';
import { BEHIND_A_FUTURE_CLOCK, CLOCK_AHEAD, UNAUTHORIZED, type SyncAck, type WriteRejection } from './protocol/sync-batch.js';
import type { RejectedWriteReport } from './sync-options.js';
import type { AgentHealth } from './agent-health.js';
import type { Direction } from './protocol/down-messages.js';

/** How many refused writes status().lastRejections keeps. */
export const MAX_REJECTIONS_KEPT = 20;

export class WriteRejections {
  rejectedWrites = 0;
  private readonly kept: RejectedWriteReport[] = [];

  constructor(
    private readonly replica: Pick<Replica, 'restoreRejected'>,
    private readonly direction: (table: string) => Direction,
    private readonly health: AgentHealth,
  ) {}

  /** The last MAX_REJECTIONS_KEPT refused writes, oldest first (a copy). */
  lastRejections(): RejectedWriteReport[] {
    return [...this.kept];
  }

  /** The writes an ack names as refused (version rule, write grants, clock), or as lost to a far newer version. */
  async answer(table: ReplicaTable, ack: SyncAck): Promise<void> {
    if (!ack.rejections) return;
    const behind = ack.rejections.filter((r) => r.reason.startsWith(BEHIND_A_FUTURE_CLOCK));
    const unauthorized = ack.rejections.filter((r) => r.reason.startsWith(UNAUTHORIZED));
    const clockAhead = ack.rejections.filter((r) => r.reason.startsWith(CLOCK_AHEAD));
    const refusedWrites = ack.rejections.filter((r) => ![BEHIND_A_FUTURE_CLOCK, UNAUTHORIZED, CLOCK_AHEAD].some((prefix) => r.reason.startsWith(prefix)));
    const both = this.direction(table.name) === 'both';
    if (behind.length > 0 && both) await this.takeWinners(table, behind);
    if (refusedWrites.length > 0) await this.rejected(table, refusedWrites);
    if (clockAhead.length > 0) {
      if (both) await this.rejected(table, clockAhead);
      else this.keep(table, clockAhead, []);
    }
    if (unauthorized.length > 0) this.keep(table, unauthorized, []);
  }

  /**
   * Writes the hub refused under a version rule, or for their clock in a table received down too (acknowledged all the same):
   * counted, reported in status(), and the local copies put back to the hub's items (restore-rejected.ts).
   */
  private async rejected(table: ReplicaTable, rejections: readonly WriteRejection[]): Promise<void> {
    let restored: boolean[] = [];
    try {
      restored = await this.replica.restoreRejected(table.name, rejections);
    } catch (err) {
      this.health.failed(err, 'restoring refused writes failed: ');
    }
    this.keep(table, rejections, restored);
  }

  /** Counts refused writes, keeps the last ones for status() and names the last in lastError. */
  private keep(table: ReplicaTable, rejections: readonly WriteRejection[], restored: readonly boolean[]): void {
    const atMs = Date.now();
    rejections.forEach((r, i) => {
      this.rejectedWrites += 1;
      this.kept.push({
        table: table.name,
        keys: toWireItem(r.keys),
        ...(r.item ? { item: toWireItem(r.item) } : {}),
        ...(r.hubItem ? { hubItem: toWireItem(r.hubItem) } : {}),
        reason: r.reason,
        restored: restored[i] ?? false,
        atMs,
      });
      if (this.kept.length > MAX_REJECTIONS_KEPT) this.kept.shift();
    });
    this.health.lastError = `hub refused ${rejections.length} write(s) to ${table.name}: ${rejections[rejections.length - 1]!.reason}`;
  }

  /**
   * Writes of this device that lost at the hub to a version far ahead of its clock (one whose clock
   * it refused to merge, so it stamped them behind it): the local copy takes the hub's item and
   * version (restore-rejected.ts; left alone when it changed since), so the copies converge.
   * Reported in lastError, not counted as refused writes.
   */
  private async takeWinners(table: ReplicaTable, behind: readonly WriteRejection[]): Promise<void> {
    try {
      await this.replica.restoreRejected(table.name, behind);
      this.health.lastError = `${behind.length} write(s) to ${table.name} lost at the hub to a version more than maxClockDriftMs ahead of this device's clock; the hub's item was taken`;
    } catch (err) {
      this.health.failed(err, 'taking the winners of lost writes failed: ');
    }
  }
}
