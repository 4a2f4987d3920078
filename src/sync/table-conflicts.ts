/**
 * Tables the hub reported in conflict (its table of that name has another key schema or other
 * indexes). A conflicted table is not sent; the agent tries again (announces its schema, sends one
 * batch) when its own definition changes, on reconnect, and every conflictRetryMs, so a fix on
 * either side resumes it. A conflict the hub may have judged under an earlier definition (the table
 * changed and not yet announced, or announced less than ackTimeoutMs ago) stops nothing: the current
 * definition is announced (if it was not) and the batch goes again after CONFLICT_RECHECK_MS.
 */
import type { ReplicaTable } from '../replication/replica-types.js';
import type { SyncAck } from './protocol/sync-batch.js';
import { definitionOf, type SchemaAnnouncer } from './schema-announcer.js';
import type { ShardFlights } from './shard-flights.js';
import type { FlushWaiters } from './flush-waiters.js';
import type { AgentHealth } from './agent-health.js';
import { SyncError } from './sync-error.js';

/** How soon a batch goes again after a conflict ack that may predate the device's new definition. */
const CONFLICT_RECHECK_MS = 250;

/**
 * A table the hub reported in conflict: not sent until `retryAtMs` or until `definition` (the one
 * the hub judged: always the one this device last announced) changes.
 */
type Conflict = { message: string; readonly sinceMs: number; retryAtMs: number; probing: boolean; readonly definition: string };

export type TableConflictsDeps = {
  readonly ackTimeoutMs: number;
  readonly conflictRetryMs: number;
  readonly table: (name: string) => ReplicaTable | undefined;
  readonly online: () => boolean;
  readonly announcer: SchemaAnnouncer;
  readonly flights: ShardFlights;
  readonly waiters: FlushWaiters;
  readonly base: { resendAfter(table: string, atMs: number): void };
  readonly health: AgentHealth;
};

export class TableConflicts {
  private readonly conflicts = new Map<string, Conflict>();

  constructor(private readonly deps: TableConflictsDeps) {}

  get size(): number {
    return this.conflicts.size;
  }

  /** What status().tables shows of the table's conflict, if any. */
  get(name: string): { readonly message: string; readonly sinceMs: number } | undefined {
    return this.conflicts.get(name);
  }

  /** In conflict and not probing: nothing of the table is sent. */
  holds(name: string): boolean {
    return this.conflicts.get(name)?.probing === false;
  }

  /** The conflict is over (an 'applied' ack, or a new definition the hub judges afresh). */
  delete(name: string): void {
    this.conflicts.delete(name);
  }

  /** Ask again at the next poll: the hub may have changed while we were away. */
  askAgain(name: string): void {
    const conflict = this.conflicts.get(name);
    if (conflict) conflict.retryAtMs = 0;
  }

  /** In conflict, and the table's definition is still the one the hub judged. */
  stillConflicted(name: string): boolean {
    const conflict = this.conflicts.get(name);
    const table = this.deps.table(name);
    return conflict !== undefined && table !== undefined && definitionOf(table) === conflict.definition;
  }

  /**
   * Conflicted tables whose own definition changed (an index added, say) are announced again and
   * sent; the others wait for their retry time, then announce and send once more.
   */
  review(now: number): void {
    for (const [name, conflict] of this.conflicts) {
      const table = this.deps.table(name);
      if (!table) continue;
      const changed = definitionOf(table) !== conflict.definition;
      if (changed) this.conflicts.delete(name);
      else if (conflict.probing || now < conflict.retryAtMs) continue;
      else conflict.probing = true; // one batch goes out; the hub's answer ends or renews the conflict
      this.deps.announcer.announce(table);
    }
  }

  /**
   * A 'conflict' ack counts only when the hub judged the definition this device has now: acks
   * judged under an older one (the hub answers both an announcement and every batch, so several
   * can be on their way when the definition changes) lead to another look, never to a conflict
   * recorded against a definition the hub has not seen, nor to rejected flush waiters.
   */
  onConflictAck(table: ReplicaTable, ack: SyncAck): void {
    const { deps } = this;
    const now = Date.now();
    const definition = definitionOf(table);
    const announced = deps.announcer.lastAnnounced(table.name);
    if (announced !== undefined && announced.definition !== definition) {
      // The definition changed since it was last announced (updateTable, say) and the pump has not
      // announced it yet: this ack is about one the device no longer has. Announce this one now
      // (off line, the reconnect does) and send again shortly; a conflict that remains is answered
      // under it. Each pass announces, so a next late ack takes the branch below: no loop.
      this.conflicts.delete(table.name);
      if (deps.online()) deps.announcer.announce(table);
      this.recheckSoon(table.name, now);
      return;
    }
    if (announced !== undefined && announced.changedAtMs > 0 && now - announced.changedAtMs < deps.ackTimeoutMs) {
      // The definition changed moments ago: schema and batches travel on different topics, so the
      // hub may have judged a batch against the previous announcement. Send again shortly; a real
      // conflict is answered again once the hub has the new definition.
      this.recheckSoon(table.name, now);
      return;
    }
    const known = this.conflicts.get(table.name);
    this.conflicts.set(table.name, { message: ack.message, sinceMs: known?.sinceMs ?? now, retryAtMs: now + deps.conflictRetryMs, probing: false, definition });
    const message = `the hub's table ${table.name} conflicts with this device's (not sending it; retrying every ${deps.conflictRetryMs} ms): ${ack.message}`;
    deps.health.lastError = message;
    deps.flights.dropTable(table.name);
    deps.base.resendAfter(table.name, 0);
    deps.waiters.rejectTable(table.name, () => new SyncError(message));
  }

  /** The table's batches in flight go again after CONFLICT_RECHECK_MS (the next poll after it). */
  private recheckSoon(name: string, now: number): void {
    this.deps.base.resendAfter(name, now + CONFLICT_RECHECK_MS);
    this.deps.flights.retryTableAfter(name, now + CONFLICT_RECHECK_MS);
  }
}
