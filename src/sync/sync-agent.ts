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
 *
 * This file wires the parts and runs the poll: shard-sender.ts (batches), shard-flights.ts (what is
 * in flight), ack-handler.ts and write-rejections.ts (acks), table-conflicts.ts and
 * schema-announcer.ts (schemas), flush-waiters.ts (flushed()), agent-health.ts (errors, backoff),
 * sync-status.ts (status()).
 */
import type { BackgroundCollector, ReplicaTable, ShardPosition } from '../replication/replica-types.js';
import type { Edgetable } from '../edgetable.js';
import { BaseSender } from './base-sender.js';
import { MqttLink } from './mqtt-link.js';
import type { ResolvedSyncOptions, SyncStatus } from './sync-options.js';
import { conflictRuleOf } from '../replication/conflict-rule.js';
import { SyncError } from './sync-error.js';
import { Topics } from './protocol/topics.js';
import { DownAgent } from './down-agent.js';
import type { Direction } from './protocol/down-messages.js';
import { AckHandler } from './ack-handler.js';
import { AgentHealth } from './agent-health.js';
import { FlushWaiters } from './flush-waiters.js';
import { SchemaAnnouncer } from './schema-announcer.js';
import { ShardFlights } from './shard-flights.js';
import { shardKey, tableOfShardKey } from './shard-key.js';
import { ShardSender } from './shard-sender.js';
import { assembleSyncStatus } from './sync-status.js';
import { TableConflicts } from './table-conflicts.js';
import { newUpCounters, type UpCounters } from './up-counters.js';
import { WriteRejections } from './write-rejections.js';
import { DurableOutbox } from './durable-outbox.js';

export { MAX_REJECTIONS_KEPT } from './write-rejections.js';
export { MAX_BACKOFF_MS } from './agent-health.js';

export class SyncAgent {
  private readonly link: MqttLink;
  private readonly flights: ShardFlights;
  private readonly waiters = new FlushWaiters();
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  /** The message being handled (the link holds the next one until it settles). */
  private handling: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly health: AgentHealth;
  private readonly counters: UpCounters = newUpCounters();
  private readonly rejections: WriteRejections;
  private readonly incarnation: string;
  /** TableId of each synced table as enabled, so a deleted and re-created table is enabled again. */
  private readonly enabled = new Map<string, string>();
  private readonly topics: Topics;
  /** The down direction (tables synced 'down' or 'both'), when there is any. */
  private readonly down: DownAgent | undefined;
  private readonly announcer: SchemaAnnouncer;
  private readonly conflicts: TableConflicts;
  private readonly acks: AckHandler;
  private readonly sender: ShardSender;
  /** Collects received tables' tombstones after the version horizon (down or both tables only). */
  private readonly tombstones: BackgroundCollector | undefined;
  /** First-sync base reads of tables that held items when sync was enabled (base-sender.ts). */
  private readonly base: BaseSender;
  /** Only what a power cut cannot take back goes up (durable-outbox.ts). */
  private readonly durable: DurableOutbox;

  constructor(
    private readonly db: Edgetable,
    private readonly options: ResolvedSyncOptions,
  ) {
    this.incarnation = db.replica.incarnation();
    this.topics = new Topics(options.namespace);
    this.health = new AgentHealth(options.pollIntervalMs);
    this.durable = new DurableOutbox(db.replica, () => setImmediate(() => this.pump()), (err) => this.health.failed(err, 'flush before sending: '));
    this.flights = new ShardFlights(options.ackTimeoutMs);
    this.rejections = new WriteRejections(db.replica, (t) => this.direction(t), this.health);
    this.base = new BaseSender(db.replica.baseReads(), {
      ...options,
      incarnation: this.incarnation,
      topic: (table, shard) => this.topics.batch(options.deviceId, table, shard),
      publish: (topic, payload) => this.link.publish(topic, payload),
      kick: () => setImmediate(() => this.pump()),
      onError: (err) => this.health.failed(err, 'base read: '),
      whenDurable: () => (db.replica.unflushed ? db.replica.flush() : null),
    });
    this.announcer = new SchemaAnnouncer(options.deviceId, this.incarnation, this.topics, (topic, payload, retain) => this.link.publish(topic, payload, retain));
    this.conflicts = new TableConflicts({
      ackTimeoutMs: options.ackTimeoutMs,
      conflictRetryMs: options.conflictRetryMs,
      table: (name) => db.replica.table(name),
      online: () => this.link.online,
      announcer: this.announcer,
      flights: this.flights,
      waiters: this.waiters,
      base: this.base,
      health: this.health,
    });
    this.acks = new AckHandler({
      replica: db.replica,
      tables: options.tables,
      incarnation: this.incarnation,
      ackTimeoutMs: options.ackTimeoutMs,
      retentionMs: options.retentionMs,
      maxClockDriftMs: options.maxClockDriftMs,
      counters: this.counters,
      health: this.health,
      flights: this.flights,
      conflicts: this.conflicts,
      rejections: this.rejections,
      base: this.base,
      online: () => this.link.online,
      announce: (table) => this.announcer.announce(table),
      kick: () => setImmediate(() => this.pump()),
    });
    this.sender = new ShardSender({
      replica: db.replica,
      options,
      incarnation: this.incarnation,
      direction: (t) => this.direction(t),
      flights: this.flights,
      counters: this.counters,
      held: (t) => this.conflicts.holds(t),
      flushing: () => this.waiters.size > 0,
      topic: (table, shard) => this.topics.batch(options.deviceId, table, shard),
      publish: (topic, payload) => this.link.publish(topic, payload),
      kick: () => setImmediate(() => this.pump()),
      onError: (err) => this.health.failed(err),
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
              this.health.lastError = message;
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
            this.health.storageErrors += 1;
            this.health.lastError = message;
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
      this.health.failed(err, 'down: ');
    }
  }

  /** Resolves once the ack is recorded (its commit durable) or found stale; never rejects. */
  private async onAck(payload: Buffer): Promise<void> {
    if (this.stopped) return;
    await this.acks.onAck(payload);
  }

  /**
   * Resolves once what this agent is handling now has settled: the message in hand (an ack, a
   * down message) committed, counted in status() and told to observers, and any cursor move in
   * flight committed. Its commits run on a libuv worker, so another reader of the store can see
   * their data a moment before that.
   */
  settled(): Promise<void> {
    return Promise.all([this.handling, ...this.sender.skips()]).then(() => undefined);
  }

  flushed(): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('sync stopped'));
    const targets = new Map<string, number>();
    for (const { table, shard, header } of this.shardHeaders()) {
      if (header.ackedSeq < header.nextSeq - 1) targets.set(shardKey(table.name, shard), header.nextSeq - 1);
    }
    const bases = this.options.tables.filter((t) => this.direction(t) !== 'down' && !this.base.done(t));
    if (targets.size === 0 && bases.length === 0) return Promise.resolve();
    const conflicted = [...[...targets.keys()].map(tableOfShardKey), ...bases].find((t) => this.conflicts.stillConflicted(t));
    if (conflicted !== undefined) return Promise.reject(new SyncError(`the hub's table ${conflicted} conflicts with this device's: ${this.conflicts.get(conflicted)!.message}`));
    const flushed = this.waiters.wait(targets, bases);
    setImmediate(() => this.pump());
    return flushed;
  }

  status(): SyncStatus {
    return assembleSyncStatus({
      deviceId: this.options.deviceId,
      incarnation: this.incarnation,
      tables: this.options.tables,
      replica: this.db.replica,
      link: this.link,
      health: this.health,
      counters: this.counters,
      rejections: this.rejections,
      flights: this.flights,
      conflicts: this.conflicts,
      base: this.base,
      down: this.down,
      tombstones: this.tombstones,
      direction: (t) => this.direction(t),
    });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.tombstones?.stop();
    this.waiters.rejectAll(new Error('sync stopped before everything was acknowledged'));
    // The message in hand is answered first (its commit durable, its ack and PUBACK sent: a
    // broker could otherwise hand it to this device's next session again), and commits in flight
    // settle before the caller may close the store.
    await Promise.all([this.handling, ...this.sender.skips()]);
    await this.link.close();
  }

  private onLinkState(online: boolean, error?: string): void {
    try {
      this.linkChanged(online, error);
    } catch (err) {
      this.health.failed(err);
    }
  }

  private linkChanged(online: boolean, error?: string): void {
    if (error !== undefined) this.health.lastError = error;
    // Whatever was in flight may be lost with the link: send it again from the cursor.
    this.flights.clear();
    this.base.linkLost();
    if (!online || this.stopped) return;
    this.health.lastError = undefined;
    for (const name of this.options.tables) {
      const table = this.db.replica.table(name);
      if (table && this.direction(name) !== 'down') this.announcer.announce(table);
      this.conflicts.askAgain(name); // the hub may have changed while we were away
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
      this.flights.forgetTable(name);
      this.enable(table);
      this.conflicts.delete(name); // a new definition: the hub judges it afresh
      if (this.link.online && this.direction(name) !== 'down') this.announcer.announce(table);
    }
  }

  /** One pass over every synced shard: settle flush waiters, send what is due. */
  private pump(): void {
    if (this.stopped || this.pumping || !this.db.replica.open) return;
    if (this.health.paused(Date.now())) return;
    this.pumping = true;
    try {
      this.enableRecreated();
      const headers = this.shardHeaders();
      this.health.pollSucceeded();
      this.waiters.settle(headers, this.acks.acking, (t) => this.base.done(t));
      if (!this.link.online) return;
      const now = Date.now();
      if (this.conflicts.size > 0) this.conflicts.review(now);
      const sendable = this.durable.sendable(headers);
      const byId = new Map(sendable.map((h) => [shardKey(h.table.name, h.shard), h.header]));
      for (const { table, shard, header } of sendable) this.sender.sendDue(table, shard, header, byId, now);
      this.sendBases(now);
    } catch (err) {
      this.health.failed(err);
    } finally {
      this.pumping = false;
    }
  }

  /** The next page of each first-sync base read that is due (not while its table is in conflict). */
  private sendBases(now: number): void {
    for (const name of this.options.tables) {
      if (this.direction(name) === 'down') continue;
      const table = this.db.replica.table(name);
      if (!table || this.conflicts.holds(name)) continue;
      this.base.sendDue(name, table.def.TableId, now);
    }
  }

  private shardHeaders(): ShardPosition[] {
    return this.db.replica.outboxShards(this.options.tables);
  }
}
