/**
 * The device side of sync (docs/sync.md). The change log is the outbox: the agent polls each
 * synced table's shards, publishes records after each shard's cursor in size- and time-bounded
 * batches, and moves the cursor only when the hub acknowledges (stream/acknowledge-shard.ts). At
 * most one batch per shard is in flight; a batch unacknowledged after ackTimeoutMs, and every
 * batch in flight when the link drops, is sent again from the cursor (the hub is idempotent), so a
 * crash or an outage on either side replays and never skips. Nothing here blocks the synchronous
 * engine: each step is a short read or write txn on a timer.
 *
 * Works on a store another process writes to: every poll starts new read txns, which see the
 * other process's commits.
 *
 * Identity: every batch names the store's incarnation (stream/store-identity.ts) and the table's
 * TableId, so a re-flashed store or a re-created table is a new stream at the hub; an ack for
 * another incarnation or TableId (a late ack of the old stream) is ignored (staleAcks). Every
 * applied or refused ack carries the hub's clock, merged into the store clock in the ack's txn.
 * A 'refused' ack moves the cursor past the refused records (kept in the hub's dead-letter table)
 * and is counted here and persisted (stream/sync-refusals.ts).
 *
 * A 'conflict' ack (the hub's table of that name has another key schema or other indexes) stops
 * the table's sending: status().tables shows the difference, flush waiters on it are rejected,
 * and the agent tries again (announces its schema, sends one batch) when its own definition
 * changes, on reconnect, and every conflictRetryMs, so a fix on either side resumes it. A conflict
 * the hub may have judged under an earlier definition (the table changed and not yet announced, or
 * announced less than ackTimeoutMs ago) stops nothing: the current definition is announced (if it
 * was not) and the batch goes again after CONFLICT_RECHECK_MS.
 *
 * First sync of a table that already holds items: they go up as a base read (base-sender.ts,
 * replication/base-read.ts) on their own shard id, beside the log, never copied into the outbox;
 * status().tables says 'base' (with its figures) until it is done, and flushed() waits for it.
 *
 * Never ends the process: an error of a poll or an ack (a storage error such as a full disk) is
 * caught, counted (storageErrors), reported (lastError), and polling backs off (doubling from
 * pollIntervalMs up to MAX_BACKOFF_MS) until a poll succeeds again; an ack whose txn failed is
 * lost and its batch is sent again after ackTimeoutMs (the hub answers it as a duplicate).
 */
import { BASE_SHARD, decodeStreamRecord, recordOrigin, type BackgroundCollector, type ChangeEntry, type ReplicaTable, type ShardHeader, type ShardPosition } from '../replication/replica-types.js';
import type { Edgetable } from '../edgetable.js';
import { BaseSender } from './base-sender.js';
import { MqttLink } from './mqtt-link.js';
import { BEHIND_A_FUTURE_CLOCK, decodeSyncAck, encodeSyncBatch, type SyncAck, type WriteRejection } from './protocol/sync-batch.js';
import type { RejectedWriteReport, ResolvedSyncOptions, SyncStatus, TableSyncStatus } from './sync-options.js';
import { conflictRuleOf } from '../replication/conflict-rule.js';
import { toWireItem } from '../model/binary.js';
import { announceSchema, tableSchema } from './protocol/table-schema.js';
import { SyncError } from './sync-error.js';
import { Topics } from './protocol/topics.js';
import { DownAgent } from './down-agent.js';
import type { Direction } from './protocol/down-messages.js';

type InFlight = { readonly lastSeq: number; readonly sentAt: number };
/** `bases`: tables whose first-sync base read must be done too. */
type Waiter = { readonly targets: Map<string, number>; readonly bases: readonly string[]; readonly resolve: () => void; readonly reject: (err: Error) => void };
/** How soon a batch goes again after a conflict ack that may predate the device's new definition. */
const CONFLICT_RECHECK_MS = 250;
/**
 * A table the hub reported in conflict: not sent until `retryAtMs` or until `definition` (the one
 * the hub judged: always the one this device last announced) changes.
 */
type Conflict = { message: string; readonly sinceMs: number; retryAtMs: number; probing: boolean; readonly definition: string };

/** How many refused writes status().lastRejections keeps. */
export const MAX_REJECTIONS_KEPT = 20;

/** Longest pause between polls after repeated errors. */
export const MAX_BACKOFF_MS = 5000;

export class SyncAgent {
  private readonly link: MqttLink;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly retryAt = new Map<string, number>();
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  /** The message being handled (the link holds the next one until it settles). */
  private handling: Promise<void> = Promise.resolve();
  /** Shards whose cursor is moving past received writes (an asynchronous commit in flight). */
  private readonly skipping = new Map<string, Promise<void>>();
  /**
   * Shards whose ack is being recorded: its commit runs on a worker, so the moved cursor is visible
   * before the ack's counters, rejections and restores are; flush waiters wait for the whole ack.
   */
  private readonly acking = new Set<string>();
  private stopped = false;
  private lastError: string | undefined;
  private batchesSent = 0;
  private recordsAcked = 0;
  private wireBytesSent = 0;
  private rejectedAcks = 0;
  private refusedBatches = 0;
  private refusedRecords = 0;
  private staleAcks = 0;
  private clockRefused = 0;
  private clockAhead = 0;
  private storageErrors = 0;
  private rejectedWrites = 0;
  private readonly lastRejections: RejectedWriteReport[] = [];
  private failures = 0;
  private pausedUntil = 0;
  private readonly incarnation: string;
  /** TableId of each synced table as enabled, so a deleted and re-created table is enabled again. */
  private readonly enabled = new Map<string, string>();
  private readonly topics: Topics;
  /** The down direction (tables synced 'down' or 'both'), when there is any. */
  private readonly down: DownAgent | undefined;
  private readonly conflicts = new Map<string, Conflict>();
  /** Per table, the definition last announced and when it last changed (0: announced once, unchanged). */
  private readonly announced = new Map<string, { readonly definition: string; readonly changedAtMs: number }>();
  /** Collects received tables' tombstones after the version horizon (down or both tables only). */
  private readonly tombstones: BackgroundCollector | undefined;
  /** First-sync base reads of tables that held items when sync was enabled (base-sender.ts). */
  private readonly base: BaseSender;

  constructor(
    private readonly db: Edgetable,
    private readonly options: ResolvedSyncOptions,
  ) {
    this.incarnation = db.replica.incarnation();
    this.topics = new Topics(options.namespace);
    this.base = new BaseSender(db.replica.baseReads(), {
      ...options,
      incarnation: this.incarnation,
      topic: (table, shard) => this.topics.batch(options.deviceId, table, shard),
      publish: (topic, payload) => this.link.publish(topic, payload),
      kick: () => setImmediate(() => this.pump()),
      onError: (err) => this.failed(err, 'base read: '),
    });
    for (const name of options.tables) {
      const table = db.replica.table(name);
      // A table received from the hub may not exist yet: the hub's definition creates it.
      if (table) this.enable(table);
      else if (this.direction(name) === 'up') db.describeTable({ TableName: name }); // ResourceNotFoundException
    }
    const downTables = new Map<string, { direction: 'down' | 'both'; partitionKeys?: readonly (string | number | Uint8Array)[] }>();
    for (const [name, spec] of options.specs) if (spec.direction !== 'up') downTables.set(name, { direction: spec.direction, ...(spec.partitionKeys ? { partitionKeys: spec.partitionKeys } : {}) });
    this.down =
      downTables.size === 0
        ? undefined
        : new DownAgent(db, {
            deviceId: options.deviceId,
            incarnation: this.incarnation,
            topics: this.topics,
            tables: downTables,
            maxClockDriftMs: options.maxClockDriftMs,
            publish: (topic, payload, retain) => this.link.publish(topic, payload, retain),
            enable: (table) => {
              if (this.enabled.get(table.name) !== table.def.TableId) this.enable(table);
            },
            onError: (message) => {
              this.lastError = message;
            },
          });
    const downTopic = this.topics.down(options.deviceId);
    this.link = new MqttLink({
      ...options,
      subscriptions: this.down ? [this.topics.ack(options.deviceId), downTopic] : [this.topics.ack(options.deviceId)],
      // Each message's commit runs off the event loop; the link hands over the next once it settled.
      onMessage: (topic, payload) => {
        const handled = topic === downTopic ? this.onDown(payload) : this.onAck(payload);
        this.handling = handled;
        return handled;
      },
      onState: (online, error) => this.onLinkState(online, error),
    });
    this.timer = setInterval(() => this.pump(), options.pollIntervalMs);
    this.tombstones = this.down
      ? db.replica.tombstoneCollector({
          tables: () => this.receivedTables(),
          self: { device: options.deviceId, incarnation: this.incarnation },
          horizonMs: options.versionHorizonMs,
          marginMs: options.maxClockDriftMs,
          intervalMs: options.tombstoneCollectIntervalMs,
          onError: (message) => {
            this.storageErrors += 1;
            this.lastError = message;
          },
        })
      : undefined;
  }

  /** Received tables that exist here and keep version records. */
  private receivedTables(): string[] {
    return this.options.tables.filter((name) => this.direction(name) !== 'up' && this.enabled.get(name) === this.db.replica.table(name)?.def.TableId);
  }

  /** A tombstone collection pass now (sync-options.ts collectTombstones). */
  collectTombstones(): number {
    return this.tombstones?.collectNow() ?? 0;
  }

  private direction(table: string): Direction {
    return this.options.specs.get(table)?.direction ?? 'up';
  }

  /** Resolves once every table received from the hub exists here and its base read (if any) is done. */
  caughtUp(): Promise<void> {
    return this.down ? this.down.caughtUp() : Promise.resolve();
  }

  private async onDown(payload: Buffer): Promise<void> {
    if (this.stopped || !this.db.replica.open) return;
    try {
      await this.down?.onMessage(payload);
      setImmediate(() => this.pump());
    } catch (err) {
      this.failed(err, 'down: ');
    }
  }

  /**
   * Resolves once what this agent is handling now has settled: the message in hand (an ack, a
   * down message) committed, counted in status() and told to observers, and any cursor move in
   * flight committed. Its commits run on a libuv worker, so another reader of the store can see
   * their data a moment before that.
   */
  settled(): Promise<void> {
    return Promise.all([this.handling, ...this.skipping.values()]).then(() => undefined);
  }

  flushed(): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('sync stopped'));
    const targets = new Map<string, number>();
    for (const { table, shard, header } of this.shardHeaders()) {
      if (header.ackedSeq < header.nextSeq - 1) targets.set(shardKey(table.name, shard), header.nextSeq - 1);
    }
    const bases = this.options.tables.filter((t) => this.direction(t) !== 'down' && !this.base.done(t));
    if (targets.size === 0 && bases.length === 0) return Promise.resolve();
    const conflicted = [...[...targets.keys()].map((k) => k.slice(0, k.indexOf('\u0000'))), ...bases].find((t) => this.stillConflicted(t));
    if (conflicted !== undefined) return Promise.reject(new SyncError(`the hub's table ${conflicted} conflicts with this device's: ${this.conflicts.get(conflicted)!.message}`));
    return new Promise((resolve, reject) => {
      this.waiters.push({ targets, bases, resolve, reject });
      setImmediate(() => this.pump());
    });
  }

  status(): SyncStatus {
    const now = Date.now();
    const shards = this.db.replica.syncStatus(this.options.tables, now, (p) => this.inFlight.has(shardKey(p.table.name, p.shard)));
    const lastError = this.lastError ?? this.link.lastError;
    return {
      deviceId: this.options.deviceId,
      online: this.link.online,
      ...(lastError !== undefined ? { lastError } : {}),
      batchesSent: this.batchesSent + this.base.batchesSent,
      recordsAcked: this.recordsAcked + this.base.recordsAcked,
      wireBytesSent: this.wireBytesSent + this.base.wireBytesSent,
      rejectedAcks: this.rejectedAcks,
      refusedBatches: this.refusedBatches,
      refusedRecords: this.refusedRecords + this.base.refusedRecords,
      staleAcks: this.staleAcks,
      clockRefused: this.clockRefused + (this.down?.clockRefused ?? 0),
      clockAhead: this.clockAhead,
      storageErrors: this.storageErrors,
      tombstonesCollected: this.tombstones?.collected ?? 0,
      rejectedWrites: this.rejectedWrites,
      lastRejections: [...this.lastRejections],
      incarnation: this.incarnation,
      shards,
      ...(this.down ? { down: this.down.status() } : {}),
      tables: this.options.tables.map((table): TableSyncStatus => {
        const c = this.conflicts.get(table);
        const base = this.direction(table) === 'down' ? undefined : this.base.status(table, now);
        return {
          table,
          state: base && !base.done ? 'base' : 'log',
          ...(base && !base.done ? { base } : {}),
          ...(c ? { conflict: c.message, conflictSinceMs: c.sinceMs } : {}),
        };
      }),
    };
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.tombstones?.stop();
    for (const w of this.waiters.splice(0)) w.reject(new Error('sync stopped before everything was acknowledged'));
    // The message in hand is answered first (its commit durable, its ack and PUBACK sent: a
    // broker could otherwise hand it to this device's next session again), and commits in flight
    // settle before the caller may close the store.
    await Promise.all([this.handling, ...this.skipping.values()]);
    await this.link.close();
  }

  private onLinkState(online: boolean, error?: string): void {
    try {
      this.linkChanged(online, error);
    } catch (err) {
      this.failed(err);
    }
  }

  private linkChanged(online: boolean, error?: string): void {
    if (error !== undefined) this.lastError = error;
    // Whatever was in flight may be lost with the link: send it again from the cursor.
    this.inFlight.clear();
    this.retryAt.clear();
    this.base.linkLost();
    if (!online || this.stopped) return;
    this.lastError = undefined;
    for (const name of this.options.tables) {
      const table = this.db.replica.table(name);
      if (table && this.direction(name) !== 'down') this.announce(table);
      const conflict = this.conflicts.get(name);
      if (conflict) conflict.retryAtMs = 0; // ask again: the hub may have changed while we were away
    }
    this.down?.onOnline();
    this.pump();
  }

  private enable(table: ReplicaTable): void {
    const o = this.options;
    const received = this.direction(table.name) !== 'up';
    const baseImages = conflictRuleOf(o.conflicts, table.name).strategy === 'version';
    // The items the table holds now go up as a base read (base-sender.ts), unless it is only received.
    const sent = this.direction(table.name) !== 'down' ? this.incarnation : undefined;
    this.db.replica.enableOutbox(
      table.name,
      {
        outboxBudgetBytes: o.outboxBudgetBytes,
        whenFull: o.whenFull,
        retentionMs: o.retentionMs,
        ...(received ? { versions: { writer: o.deviceId, incarnation: this.incarnation } } : {}),
        ...(baseImages ? { baseImages } : {}),
      },
      sent,
    );
    this.enabled.set(table.name, table.def.TableId);
  }

  /**
   * A synced table deleted and re-created (a new TableId) is synced again: its items so far go up
   * as a base read (base-sender.ts), its schema announced, and its log is a new stream at the hub.
   */
  private enableRecreated(): void {
    for (const name of this.options.tables) {
      const table = this.db.replica.table(name);
      if (!table || this.enabled.get(name) === table.def.TableId) continue;
      // What was in flight belonged to the old table's stream.
      for (const key of [...this.inFlight.keys(), ...this.retryAt.keys()]) {
        if (key.startsWith(`${name}\u0000`)) {
          this.inFlight.delete(key);
          this.retryAt.delete(key);
        }
      }
      this.enable(table);
      this.conflicts.delete(name); // a new definition: the hub judges it afresh
      if (this.link.online && this.direction(name) !== 'down') this.announce(table);
    }
  }

  /** Publishes the table's schema, retained, stamped with now and its stream (table-schema.ts). */
  private announce(table: ReplicaTable): void {
    const now = Date.now();
    const definition = definitionOf(table);
    const before = this.announced.get(table.name);
    if (before?.definition !== definition) this.announced.set(table.name, { definition, changedAtMs: before ? now : 0 });
    this.link.publish(this.topics.schema(this.options.deviceId, table.name), announceSchema(table.def, this.incarnation, now), true);
  }

  /**
   * Conflicted tables whose own definition changed (an index added, say) are announced again and
   * sent; the others wait for their retry time, then announce and send once more.
   */
  private reviewConflicts(now: number): void {
    for (const [name, conflict] of this.conflicts) {
      const table = this.db.replica.table(name);
      if (!table) continue;
      const changed = definitionOf(table) !== conflict.definition;
      if (changed) this.conflicts.delete(name);
      else if (conflict.probing || now < conflict.retryAtMs) continue;
      else conflict.probing = true; // one batch goes out; the hub's answer ends or renews the conflict
      this.announce(table);
    }
  }

  /** In conflict, and the table's definition is still the one the hub judged. */
  private stillConflicted(name: string): boolean {
    const conflict = this.conflicts.get(name);
    const table = this.db.replica.table(name);
    return conflict !== undefined && table !== undefined && definitionOf(table) === conflict.definition;
  }

  /**
   * A 'conflict' ack counts only when the hub judged the definition this device has now: acks
   * judged under an older one (the hub answers both an announcement and every batch, so several
   * can be on their way when the definition changes) lead to another look, never to a conflict
   * recorded against a definition the hub has not seen, nor to rejected flush waiters.
   */
  private onConflict(table: ReplicaTable, ack: SyncAck): void {
    const now = Date.now();
    const definition = definitionOf(table);
    const announced = this.announced.get(table.name);
    if (announced !== undefined && announced.definition !== definition) {
      // The definition changed since it was last announced (updateTable, say) and the pump has not
      // announced it yet: this ack is about one the device no longer has. Announce this one now
      // (off line, the reconnect does) and send again shortly; a conflict that remains is answered
      // under it. Each pass announces, so a next late ack takes the branch below: no loop.
      this.conflicts.delete(table.name);
      if (this.link.online) this.announce(table);
      this.recheckSoon(table.name, now);
      return;
    }
    if (announced !== undefined && announced.changedAtMs > 0 && now - announced.changedAtMs < this.options.ackTimeoutMs) {
      // The definition changed moments ago: schema and batches travel on different topics, so the
      // hub may have judged a batch against the previous announcement. Send again shortly; a real
      // conflict is answered again once the hub has the new definition.
      this.recheckSoon(table.name, now);
      return;
    }
    const known = this.conflicts.get(table.name);
    this.conflicts.set(table.name, { message: ack.message, sinceMs: known?.sinceMs ?? now, retryAtMs: now + this.options.conflictRetryMs, probing: false, definition });
    this.lastError = `the hub's table ${table.name} conflicts with this device's (not sending it; retrying every ${this.options.conflictRetryMs} ms): ${ack.message}`;
    for (const key of [...this.inFlight.keys()]) if (key.startsWith(`${table.name}\u0000`)) this.inFlight.delete(key);
    this.base.resendAfter(table.name, 0);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if ([...w.targets.keys()].some((k) => k.startsWith(`${table.name}\u0000`)) || w.bases.includes(table.name)) {
        this.waiters.splice(i, 1);
        w.reject(new SyncError(this.lastError));
      }
    }
  }

  /** The table's batches in flight go again after CONFLICT_RECHECK_MS (the next poll after it). */
  private recheckSoon(name: string, now: number): void {
    this.base.resendAfter(name, now + CONFLICT_RECHECK_MS);
    for (const key of [...this.inFlight.keys()]) {
      if (!key.startsWith(`${name}\u0000`)) continue;
      this.inFlight.delete(key);
      this.retryAt.set(key, now + CONFLICT_RECHECK_MS);
    }
  }

  /** Resolves once the ack is recorded (its commit durable) or found stale; never rejects. */
  private async onAck(payload: Buffer): Promise<void> {
    if (this.stopped) return;
    let ack: SyncAck;
    try {
      ack = decodeSyncAck(payload);
    } catch (err) {
      this.lastError = `malformed ack: ${(err as Error).message}`;
      return;
    }
    try {
      await this.applyAck(ack);
    } catch (err) {
      this.failed(err, 'recording ack failed: ');
    }
  }

  private async applyAck(ack: SyncAck): Promise<void> {
    const key = shardKey(ack.table, ack.shard);
    const table = this.db.replica.table(ack.table);
    if (!table || !this.options.tables.includes(ack.table)) return;
    if (ack.incarnation !== this.incarnation || ack.tableId !== table.def.TableId) {
      this.staleAcks += 1; // an ack of a stream this store no longer has
      return;
    }
    if (ack.status === 'conflict') {
      this.onConflict(table, ack);
      return;
    }
    if (ack.status === 'retry') {
      this.rejectedAcks += 1;
      this.lastError = `hub rejected ${ack.table}/${ack.shard}: ${ack.message}`;
      if (ack.shard === BASE_SHARD) void this.base.onAck(ack, table.def.TableId);
      this.inFlight.delete(key);
      this.retryAt.set(key, Date.now() + this.options.ackTimeoutMs);
      // A hub that lost the schema (restarted after its retained copy was cleared) gets it again.
      if (this.link.online) this.announce(table);
      return;
    }
    if (ack.status === 'applied') this.conflicts.delete(ack.table);
    if (ack.shard === BASE_SHARD) {
      this.acking.add(key);
      try {
        await this.base.onAck(ack, table.def.TableId);
        if (ack.status === 'refused') this.lastError = `hub refused a base-read page of ${ack.table} (kept in its dead-letter table): ${ack.message}`;
        await this.answerRejections(table, ack);
      } finally {
        this.acking.delete(key);
      }
      setImmediate(() => this.pump());
      return;
    }
    this.acking.add(key);
    try {
      await this.recordAck(ack, key, table);
    } finally {
      this.acking.delete(key);
    }
    setImmediate(() => this.pump());
  }

  /** The ack's commit (cursor, clock, refusals), then its counters, rejections and restores. */
  private async recordAck(ack: SyncAck, key: string, table: ReplicaTable): Promise<void> {
    const refused = ack.status === 'refused';
    const outcome = await this.db.replica.acknowledge(table.name, ack.shard, ack.seq, this.options.retentionMs, {
      hubClock: ack.hubClock,
      maxDriftMs: this.options.maxClockDriftMs,
      ...(refused ? { refusedMessage: ack.message } : {}),
    });
    if (outcome.clockRefused) {
      this.clockRefused += 1;
      this.lastError = `hub clock ${ack.hubClock.ms} is more than ${this.options.maxClockDriftMs} ms ahead of this device's; not merged`;
    }
    // The local guard: this store's clock far ahead of the hub's (its wall clock was once in the
    // future). Its writes keep their order, and win their keys at the hub until real time passes.
    if (outcome.clock && outcome.clock.ms > ack.hubClock.ms + this.options.maxClockDriftMs) {
      this.clockAhead += 1;
      this.lastError = `this store's clock is ${outcome.clock.ms - ack.hubClock.ms} ms ahead of the hub's (over maxClockDriftMs ${this.options.maxClockDriftMs})`;
    }
    if (refused) {
      this.refusedBatches += 1;
      this.refusedRecords += outcome.records;
      this.lastError = `hub refused ${ack.table}/${ack.shard} up to ${ack.seq} (kept in its dead-letter table): ${ack.message}`;
    } else {
      this.recordsAcked += outcome.records;
    }
    await this.answerRejections(table, ack);
    this.failures = 0;
    const flight = this.inFlight.get(key);
    if (flight && ack.seq >= flight.lastSeq) this.inFlight.delete(key);
  }

  /** The writes an ack names as refused under a version rule, or as lost to a far newer version. */
  private async answerRejections(table: ReplicaTable, ack: SyncAck): Promise<void> {
    if (!ack.rejections) return;
    const behind = ack.rejections.filter((r) => r.reason.startsWith(BEHIND_A_FUTURE_CLOCK));
    const refusedWrites = ack.rejections.filter((r) => !r.reason.startsWith(BEHIND_A_FUTURE_CLOCK));
    if (behind.length > 0 && this.direction(table.name) === 'both') await this.takeWinners(table, behind);
    if (refusedWrites.length > 0) await this.rejected(table, refusedWrites);
  }

  /**
   * Writes the hub refused under a version rule (acknowledged all the same): counted, reported in
   * status(), and the local copies put back to the hub's items (restore-rejected.ts).
   */
  private async rejected(table: ReplicaTable, rejections: readonly WriteRejection[]): Promise<void> {
    let restored: boolean[] = [];
    try {
      restored = await this.db.replica.restoreRejected(table.name, rejections);
    } catch (err) {
      this.failed(err, 'restoring refused writes failed: ');
    }
    const atMs = Date.now();
    rejections.forEach((r, i) => {
      this.rejectedWrites += 1;
      this.lastRejections.push({
        table: table.name,
        keys: toWireItem(r.keys),
        ...(r.item ? { item: toWireItem(r.item) } : {}),
        ...(r.hubItem ? { hubItem: toWireItem(r.hubItem) } : {}),
        reason: r.reason,
        restored: restored[i] ?? false,
        atMs,
      });
      if (this.lastRejections.length > MAX_REJECTIONS_KEPT) this.lastRejections.shift();
    });
    this.lastError = `hub refused ${rejections.length} write(s) to ${table.name} under its version rule: ${rejections[rejections.length - 1]!.reason}`;
  }

  /**
   * Writes of this device that lost at the hub to a version far ahead of its clock (one whose clock
   * it refused to merge, so it stamped them behind it): the local copy takes the hub's item and
   * version (restore-rejected.ts; left alone when it changed since), so the copies converge.
   * Reported in lastError, not counted as refused writes.
   */
  private async takeWinners(table: ReplicaTable, behind: readonly WriteRejection[]): Promise<void> {
    try {
      await this.db.replica.restoreRejected(table.name, behind);
      this.lastError = `${behind.length} write(s) to ${table.name} lost at the hub to a version more than maxClockDriftMs ahead of this device's clock; the hub's item was taken`;
    } catch (err) {
      this.failed(err, 'taking the winners of lost writes failed: ');
    }
  }

  /** Counts and reports an error and backs polling off; never rethrows. */
  private failed(err: unknown, prefix = ''): void {
    this.storageErrors += 1;
    this.failures += 1;
    this.lastError = `${prefix}${(err as Error).message}`;
    const pause = Math.min(MAX_BACKOFF_MS, this.options.pollIntervalMs * 2 ** Math.min(this.failures, 16));
    this.pausedUntil = Date.now() + pause;
  }

  /** One pass over every synced shard: settle flush waiters, send what is due. */
  private pump(): void {
    if (this.stopped || this.pumping || !this.db.replica.open) return;
    if (Date.now() < this.pausedUntil) return;
    this.pumping = true;
    try {
      this.enableRecreated();
      const headers = this.shardHeaders();
      if (this.failures > 0) {
        this.failures = 0;
        this.lastError = undefined;
      }
      this.settleWaiters(headers);
      if (!this.link.online) return;
      const now = Date.now();
      if (this.conflicts.size > 0) this.reviewConflicts(now);
      const byId = new Map(headers.map((h) => [shardKey(h.table.name, h.shard), h.header]));
      for (const { table, shard, header } of headers) this.sendDue(table, shard, header, byId, now);
      this.sendBases(now);
    } catch (err) {
      this.failed(err);
    } finally {
      this.pumping = false;
    }
  }

  private sendDue(table: ReplicaTable, shard: number, header: ShardHeader, byId: Map<string, ShardHeader>, now: number): void {
    const key = shardKey(table.name, shard);
    const last = header.nextSeq - 1;
    if (header.ackedSeq >= last || this.skipping.has(key)) return;
    if (this.conflicts.get(table.name)?.probing === false) return;
    const flight = this.inFlight.get(key);
    if (flight && now - flight.sentAt < this.options.ackTimeoutMs) return;
    if ((this.retryAt.get(key) ?? 0) > now) return;
    if (header.parent !== undefined) {
      const parent = byId.get(shardKey(table.name, header.parent));
      if (parent && parent.ackedSeq < parent.nextSeq - 1) return; // parents first
    }
    let records = this.db.replica.readChanges(table.name, shard, header.ackedSeq + 1, this.options.batchMaxRecords, this.options.batchMaxBytes);
    if (records.length === 0) return;
    const direction = this.direction(table.name);
    if (direction !== 'up') {
      // Writes received from the hub are not sent back: the cursor passes over them here, and a
      // batch is a run of the device's own writes, which names the cursor it follows (`after`).
      const own = direction === 'both' ? ownRun(records) : { skipTo: records[records.length - 1]!.seq, run: [] };
      if (own.skipTo !== undefined) {
        // Off the event loop like every commit of the agent; this shard waits for it.
        const skipped = this.db.replica.acknowledge(table.name, shard, own.skipTo, this.options.retentionMs).then(
          () => {
            this.skipping.delete(key);
            setImmediate(() => this.pump());
          },
          (err: unknown) => {
            this.skipping.delete(key);
            this.failed(err);
          },
        );
        this.skipping.set(key, skipped);
        return;
      }
      records = own.run;
    }
    const lastSent = records[records.length - 1]!.seq;
    const full = lastSent < last || records.length >= this.options.batchMaxRecords;
    if (!full && this.waiters.length === 0 && now - decodeStreamRecord(records[0]!.bytes).timeMs < this.options.batchMaxDelayMs) return;
    const payload = encodeSyncBatch(
      {
        deviceId: this.options.deviceId,
        incarnation: this.incarnation,
        table: table.name,
        tableId: table.def.TableId,
        shard,
        parent: header.parent,
        records,
        ...(direction === 'both' ? { after: header.ackedSeq } : {}),
      },
      this.options.compression,
    );
    if (!this.link.publish(this.topics.batch(this.options.deviceId, table.name, shard), payload)) return;
    this.inFlight.set(key, { lastSeq: lastSent, sentAt: now });
    this.batchesSent += 1;
    this.wireBytesSent += payload.length;
  }

  /** The next page of each first-sync base read that is due (not while its table is in conflict). */
  private sendBases(now: number): void {
    for (const name of this.options.tables) {
      if (this.direction(name) === 'down') continue;
      const table = this.db.replica.table(name);
      if (!table || this.conflicts.get(name)?.probing === false) continue;
      this.base.sendDue(name, table.def.TableId, now);
    }
  }

  private settleWaiters(headers: readonly ShardPosition[]): void {
    if (this.waiters.length === 0) return;
    const acked = new Map(headers.map((h) => [shardKey(h.table.name, h.shard), h.header.ackedSeq]));
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if ([...w.targets].every(([k, seq]) => !this.acking.has(k) && (acked.get(k) ?? 0) >= seq) && w.bases.every((t) => !this.acking.has(shardKey(t, BASE_SHARD)) && this.base.done(t))) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  private shardHeaders(): ShardPosition[] {
    return this.db.replica.outboxShards(this.options.tables);
  }
}

/**
 * The records a 'both' table's shard sends next: when it starts with received writes (they carry
 * an origin), `skipTo` is the last of them (the cursor passes over them); otherwise `run` is the
 * device's own writes up to the next received one.
 */
function ownRun(records: readonly ChangeEntry[]): { skipTo?: number; run: ChangeEntry[] } {
  let skipTo: number | undefined;
  for (const r of records) {
    if (recordOrigin(r.bytes) === undefined) break;
    skipTo = r.seq;
  }
  if (skipTo !== undefined) return { skipTo, run: [] };
  const run: ChangeEntry[] = [];
  for (const r of records) {
    if (recordOrigin(r.bytes) !== undefined) break;
    run.push(r);
  }
  return { run };
}

/** What the hub compares: the table's announced definition and its TableId. */
function definitionOf(table: ReplicaTable): string {
  return `${table.def.TableId} ${JSON.stringify(tableSchema(table.def))}`;
}

function shardKey(table: string, shard: number): string {
  return `${table}\u0000${shard}`;
}
