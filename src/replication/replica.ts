/**
 * The Replica port: everything sync/ (the device agent) and hub/ (the hub, its down publisher
 * and forwarder) need from the engine, and the only way they reach it besides `Edgetable` and
 * `db.promises` (DESIGN.md's layers; test/architecture/layering.test.ts keeps them to it). In the
 * spirit of LevelDB's DB interface, a few operations over plain values: a table is a
 * ReplicaTable, a change is its sequence number and bytes, a clock an HLC (replica-types.ts).
 *
 * The groups, in the order a record travels:
 *   identity and clock    incarnation, clock
 *   tables                table, tables
 *   outbox (device)       enableOutbox, baseReads, outboxShards, readChanges, acknowledge, unflushed, flush
 *   apply                 applyHubBatch, refuseHubBatch (hub), applyDown, baseDone, rebaseRequested, sweepBase, restoreRejected (device)
 *   readers (hub)         logShards, readChanges, readBasePage, keyId
 *   cursors               readCursor/writeCursor (forwarders), downState/saveDownState (down publisher)
 *   log and collection    logHubTable, logChanges, pruneLog, logSizes, forwardLag, collectVersions,
 *                         tombstoneCollector
 *   status                syncStatus, gaps, deadLetters
 *
 * Every replication write commits through the engine's one asynchronous commit path, the queue
 * db.promises uses (ops/commit-queue.ts submitTxn): in order with every other write, off the event
 * loop, and resolving only once durable, so observers, change records, versions and metrics see
 * it as they see any write. The synchronous exceptions are setup (enabling a log, which may log a
 * table's items once) and the bounded background passes of the hub and the device (pruning,
 * version and tombstone collection), which commit in short txns of their own.
 */
import type { Item } from '../model/attribute-value.js';
import type { EngineContext } from '../ops/engine-context.js';
import { retryCatalogChangesAsync } from '../ops/catalog-retry.js';
import { SYNC_DB } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { WriteTxn } from '../storage/txn.js';
import type { Durability } from '../storage/store-options.js';
import type { Commit } from './commit.js';
import { acknowledgeShardPlan, type AckEffects } from '../stream/acknowledge-shard.js';
import { decodeStreamRecord } from '../stream/change-record.js';
import { enableSync } from '../stream/enable-sync.js';
import { HLC_ZERO, readStoreClock, type Hlc } from '../stream/hlc.js';
import { readVersion, writeVersion } from '../stream/item-versions.js';
import { readSyncSettings, type SyncSettings } from '../stream/shard-state.js';
import { ensureStoreIdentity } from '../stream/store-identity.js';
import { listShards, readShardRaw } from '../stream/stream-reader.js';
import type { Table } from '../table/table.js';
import { enableSyncWithBase } from './base-read.js';
import { baseReadPort, type BaseReadPort } from './base-read-port.js';
import { planBatch, planRefusal, type ApplyContext, type ApplyResult } from './apply-batch.js';
import { planDown, type DownApplyResult } from './apply-down.js';
import { readBasePage, type BasePage, type BaseProgress } from './base-reader.js';
import { collectVersions, collectVersionsAsync } from './collect-versions.js';
import type { ConflictRule } from './conflict-rule.js';
import { DEAD_LETTER_TABLE, ensureDeadLetterTable } from './dead-letters.js';
import { isBaseDone, readDeviceBase } from './down-records.js';
import { readDownState, writeDownState, type DownState } from './down-state.js';
import { readCursor, writeCursorPlan } from './forward-cursor.js';
import { forwardLag, type TableLag } from './forward-lag.js';
import { hubLogSizes, type LogSize } from './hub-log-size.js';
import { enableHubLog, HUB_LOG_SETTINGS, pruneHubLog, type PruneOptions } from './hub-log.js';
import { readGaps, readVersionFloor, type GapReport } from './hub-records.js';
import { planRestore } from './restore-rejected.js';
import { readShardPositions, shardSyncStatus } from './shard-status.js';
import { sweepBase } from './sweep-base.js';
import { readRebaseMark } from './rebase-marks.js';
import { TombstoneCollector } from './tombstone-collector.js';
import type { AckOutcome, BackgroundCollector, ChangeEntry, CollectorOptions, DownEntry, HubBatch, LogShard, ReplicaSelf, ReplicaTable, ShardPosition, ShardSyncStatus, Version, WriteRejection } from './replica-types.js';


/** How a device's outbox behaves (sync-options.ts resolves them); `versions` for tables it receives. */
export type OutboxSettings = Pick<SyncSettings, 'outboxBudgetBytes' | 'whenFull' | 'retentionMs' | 'versions' | 'baseImages'>;

export class Replica {
  private readonly handles = new WeakMap<Table, ReplicaTable>();
  private incarnationId: string | undefined;
  private baseReadPort: BaseReadPort | undefined;

  /** Edgetable builds the one Replica of an engine (db.replica). @internal */
  constructor(
    private readonly ctx: EngineContext,
    private readonly commit: Commit,
  ) {}

  /** The store's sync incarnation, made by its first open (stream/store-identity.ts). */
  incarnation(): string {
    this.incarnationId ??= ensureStoreIdentity(this.ctx.store);
    return this.incarnationId;
  }

  /** The store's hybrid logical clock as last persisted (HLC_ZERO before its first sync write). */
  clock(): Hlc {
    const store = this.ctx.store;
    if (!store.hasDatabase(SYNC_DB)) return HLC_ZERO;
    return store.read((txn) => readStoreClock(txn, this.syncDb)) ?? HLC_ZERO;
  }

  /** False once the store closed: every other method then throws. */
  get open(): boolean {
    return !this.ctx.store.closed;
  }

  table(name: string): ReplicaTable | undefined {
    const table = this.ctx.catalog.find(name);
    return table && this.handle(table);
  }

  /** Every table but the hub's dead-letter table. */
  tables(): ReplicaTable[] {
    return this.ctx.catalog
      .all()
      .filter((t) => t.name !== DEAD_LETTER_TABLE)
      .map((t) => this.handle(t));
  }

  /**
   * Marks a table synced with these outbox settings. The first time, with `baseWriter` (this
   * store's incarnation: the table is sent up), the items it holds go up as a base read
   * (base-read.ts, baseReads()) instead of being copied into the outbox. A table synced up before it was received too (`versions` new): the
   * writes still in its outbox get their version records now, so a received record older than one
   * of them does not replace it here while losing to it at the hub.
   */
  enableOutbox(name: string, settings: OutboxSettings, baseWriter?: string): void {
    const table = this.require(name);
    const store = this.ctx.store;
    const before = store.read((txn) => readSyncSettings(txn, table.meta));
    enableSyncWithBase(store, table, settings, baseWriter);
    if (settings.versions && before !== undefined && before.versions === undefined) this.seedVersions(table, settings.versions);
  }

  /** A device's first-sync base reads (base-read-port.ts), keyed by table name. */
  baseReads(): BaseReadPort {
    this.baseReadPort ??= baseReadPort(this.ctx.store, this.ctx.catalog, this.commit);
    return this.baseReadPort;
  }

  /** The outbox shards of `tables` (those that exist) with their cursors, read now. */
  outboxShards(tables: readonly string[]): ShardPosition[] {
    return readShardPositions(this.ctx.store, tables.flatMap((name) => {
      const table = this.ctx.catalog.find(name);
      return table ? [{ table, handle: this.handle(table) }] : [];
    }));
  }

  /** The store's durability: 'interval' and 'relaxed' let a committed write be read before it is durable. */
  get durability(): Durability {
    return this.ctx.store.durability;
  }

  /** Whether writes of this store a power cut could still take back wait for their flush (durability 'interval' or 'relaxed'). */
  get unflushed(): boolean {
    return this.ctx.store.hasUnflushedCommits;
  }

  /** Flushes every write committed so far (Store.sync): resolves once a power cut cannot take them back. */
  flush(): Promise<void> {
    return this.ctx.store.sync();
  }

  /** Up to `limit` records of a shard from `fromSeq` on, at most `maxBytes` (the first always). */
  readChanges(table: string, shard: number, fromSeq: number, limit: number, maxBytes = Infinity): ChangeEntry[] {
    return readShardRaw(this.ctx.store, table, shard, fromSeq, limit, maxBytes);
  }

  /**
   * Moves a shard's cursor to `seq` (the hub acknowledged it, or the device passes over received
   * writes), prunes, and merges the hub's clock (stream/acknowledge-shard.ts); resolves once durable.
   */
  acknowledge(table: string, shard: number, seq: number, retentionMs: number, effects: AckEffects = {}): Promise<AckOutcome> {
    return this.write(() => acknowledgeShardPlan(this.ctx.store, this.require(table), shard, seq, retentionMs, Date.now(), effects));
  }

  /**
   * Applies a device batch to the hub table `hubTable` (apply-batch.ts) and resolves once durable.
   * Throws CatalogChangedError, nothing written, when the table changed under it (retrying()).
   */
  applyHubBatch(hubTable: string, batch: HubBatch, o: { readonly maxDriftMs: number; readonly conflict?: ConflictRule; readonly authorize?: ApplyContext['authorize'] }): Promise<ApplyResult> {
    return this.write(() => {
      const table = this.require(hubTable);
      const deadLetters = ensureDeadLetterTable(this.ctx);
      return planBatch({ store: this.ctx.store, syncDb: this.syncDb, table, deadLetters, nowMs: Date.now(), maxDriftMs: o.maxDriftMs, ...(o.conflict ? { conflict: o.conflict } : {}), ...(o.authorize ? { authorize: o.authorize } : {}) }, batch);
    });
  }

  /**
   * Refuses a whole device batch without a hub table (a table the device may not write): its new
   * records kept in the dead-letter table with `reason`, the stream moved past them; resolves once durable.
   */
  refuseHubBatch(batch: HubBatch, reason: string): Promise<ApplyResult> {
    return this.write(() => planRefusal({ syncDb: this.syncDb, deadLetters: ensureDeadLetterTable(this.ctx), nowMs: Date.now() }, batch, reason));
  }

  /** Runs `attempt` again (up to ops/catalog-retry.ts's bound) while another process changes the catalog under it. */
  retrying<R>(attempt: () => Promise<R>, onRetry?: () => void): Promise<R> {
    return retryCatalogChangesAsync(this.ctx.catalog, attempt, onRetry);
  }

  /** Applies one down message's entries by last-writer-wins (apply-down.ts); resolves once durable. */
  applyDown(table: string, entries: readonly DownEntry[], o: { readonly baseId?: string; readonly maxDriftMs: number }): Promise<DownApplyResult> {
    return this.write(() => planDown({ store: this.ctx.store, syncDb: this.syncDb, table: this.require(table), nowMs: Date.now(), maxDriftMs: o.maxDriftMs }, entries, o.baseId));
  }

  /** Whether the base read `baseId` of the table was completed here (down-records.ts). */
  baseDone(table: string, baseId: string): boolean {
    return this.ctx.store.read((txn) => isBaseDone(readDeviceBase(txn, this.syncDb, table), baseId));
  }

  /**
   * Whether the device must re-read the table whole from the hub before trusting its copy (a
   * salvaged store, rebase-marks.ts); the sweep of the next completed base read clears it.
   */
  rebaseRequested(table: string): boolean {
    return this.ctx.store.read((txn) => readRebaseMark(txn, this.syncDb, table)) !== undefined;
  }

  /**
   * The end of a base read (sweep-base.ts): drops what the base did not hold within `prefixes`
   * (stored-key prefixes of the subscribed partitions; undefined: the whole table). Resolves with
   * the number of items deleted once the last page is durable.
   */
  sweepBase(table: string, baseId: string, prefixes: readonly Uint8Array[] | undefined, self: ReplicaSelf): Promise<number> {
    return Promise.resolve().then(() => sweepBase({ store: this.ctx.store, commit: this.commit, syncDb: this.syncDb, table: this.require(table), prefixes, self }, baseId));
  }

  /** Puts the hub's items back in place of writes it refused (restore-rejected.ts); per rejection, whether it did. */
  restoreRejected(table: string, rejections: readonly WriteRejection[]): Promise<boolean[]> {
    return this.write(() => planRestore(this.syncDb, this.require(table), rejections));
  }

  /** The shards of a table's change log, each with the oldest record it still holds and its last. */
  logShards(table: string): LogShard[] {
    return listShards(this.ctx.store, this.require(table)).map((s) => ({
      shard: s.ShardId,
      ...(s.ParentShardId !== undefined ? { parent: s.ParentShardId } : {}),
      open: s.Open,
      firstSeq: s.SequenceNumberRange.StartingSequenceNumber,
      lastSeq: s.SequenceNumberRange.LastSequenceNumber,
    }));
  }

  /**
   * One page of a base read (base-reader.ts). Each item carries its version record, or for an item
   * without one the collected floor as the version of `writer` (the hub itself).
   */
  readBasePage(table: string, prefixes: readonly Uint8Array[] | undefined, progress: BaseProgress, limit: number, maxBytes: number, writer: ReplicaSelf): BasePage {
    const syncDb = this.syncDb;
    const versionAt = (txn: Parameters<typeof readVersion>[0], key: Uint8Array): Version =>
      readVersion(txn, syncDb, table, key) ?? { hlc: readVersionFloor(txn, syncDb) ?? HLC_ZERO, device: writer.device, incarnation: writer.incarnation };
    return readBasePage(this.ctx.store, this.require(table), prefixes, progress, limit, maxBytes, versionAt);
  }

  /** The item key's stored bytes in hex: one id per item of the table (the forwarder's per-key order). */
  keyId(table: string, keys: Item): string {
    return Buffer.from(this.require(table).keyOf(keys).bytes).toString('hex');
  }

  /** A forwarder's durable cursor: the last sequence of the shard the endpoint acknowledged (0: none). */
  readCursor(endpoint: string, table: string, shard: number): number {
    return readCursor(this.ctx.store, endpoint, table, shard);
  }

  writeCursor(endpoint: string, table: string, shard: number, seq: number): Promise<void> {
    return this.write(() => writeCursorPlan(this.ctx.store, endpoint, table, shard, seq));
  }

  /** The down publisher's durable state for one device's copy of a table (down-state.ts). */
  downState(device: string, incarnation: string, table: string): DownState | undefined {
    return this.ctx.store.read((txn) => readDownState(txn, this.syncDb, device, incarnation, table));
  }

  saveDownState(device: string, incarnation: string, table: string, state: DownState): Promise<void> {
    return this.write(() => {
      const syncDb = this.syncDb;
      return (txn) => writeDownState(txn, syncDb, device, incarnation, table, state);
    });
  }

  /** A hub table's change log with versions written as `versions` (hub-log.ts); once per table. */
  logHubTable(table: string, versions: NonNullable<SyncSettings['versions']>): void {
    enableHubLog(this.ctx.store, this.require(table), versions);
  }

  /** Logs a table's changes (its items once, the first time) for a forwarder, unless it is logged already. */
  logChanges(table: string): void {
    const t = this.require(table);
    if (this.ctx.store.read((txn) => readSyncSettings(txn, t.meta)) === undefined) enableSync(this.ctx.store, t, HUB_LOG_SETTINGS);
  }

  /** Deletes the log records every reader is done with (hub-log.ts); returns how many. */
  pruneLog(table: string, o: Omit<PruneOptions, 'syncDb'>): number {
    return pruneHubLog(this.ctx.store, this.require(table), { syncDb: this.syncDb, ...o });
  }

  /**
   * Collects the hub's version records older than the horizon (collect-versions.ts). With
   * `stopRequested` each txn commits off the event loop and the pass stops between txns when asked.
   */
  collectVersions(horizonMs: number, nowMs: number): number;
  collectVersions(horizonMs: number, nowMs: number, stopRequested: () => boolean): Promise<number>;
  collectVersions(horizonMs: number, nowMs: number, stopRequested?: () => boolean): number | Promise<number> {
    if (stopRequested === undefined) return collectVersions(this.ctx.store, this.syncDb, horizonMs, nowMs);
    return collectVersionsAsync(this.ctx.store, this.syncDb, horizonMs, nowMs, stopRequested);
  }

  /** A device's background tombstone collection over the tables `tables()` names (tombstone-collector.ts). */
  tombstoneCollector(o: CollectorOptions): BackgroundCollector {
    return new TombstoneCollector({ ...o, store: this.ctx.store, syncDb: this.syncDb, tables: () => o.tables().flatMap((n) => this.ctx.catalog.find(n) ?? []) });
  }

  /**
   * How far a forwarder to `endpoint` is behind on each of `tables` (forward-lag.ts): records after
   * its cursors and the creation time of the oldest of them.
   */
  forwardLag(endpoint: string, tables: readonly string[]): TableLag[] {
    return forwardLag(this.ctx, tables, (table, shard) => this.readCursor(endpoint, table, shard));
  }

  /** The records each hub table's log holds (hub-log-size.ts), every table but the dead letters. */
  logSizes(): LogSize[] {
    return hubLogSizes(this.ctx, [DEAD_LETTER_TABLE]);
  }

  /** Sync figures of the outbox shards of `tables` (default: every table with a change log). */
  syncStatus(tables?: readonly string[], now = Date.now(), inFlight: (p: ShardPosition) => boolean = () => false): ShardSyncStatus[] {
    return this.outboxShards(tables ?? this.ctx.catalog.names()).map((p) => shardSyncStatus(this.ctx.store, this.ctx.catalog.require(p.table.name), p, now, inFlight(p)));
  }

  /** Sequence gaps the hub saw in device streams (hub-records.ts). */
  gaps(): GapReport[] {
    return this.ctx.store.hasDatabase(SYNC_DB) ? this.ctx.store.read((txn) => readGaps(txn, this.syncDb)) : [];
  }

  /** Creates the hub's dead-letter table unless it exists (dead-letters.ts); returns its name. */
  deadLetters(): string {
    return ensureDeadLetterTable(this.ctx).name;
  }

  /**
   * Commits the txn `build` returns on the engine's commit path. What `build` throws (a closed
   * store, an unknown table, a malformed record) rejects the promise: nothing is written.
   */
  private write<T>(build: () => (txn: WriteTxn) => T): Promise<T> {
    let plan: (txn: WriteTxn) => T;
    try {
      plan = build();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return this.commit(plan);
  }

  private get syncDb(): Database {
    return this.ctx.store.database(SYNC_DB);
  }

  private require(name: string): Table {
    return this.ctx.catalog.require(name);
  }

  private handle(table: Table): ReplicaTable {
    let h = this.handles.get(table);
    if (!h) {
      const { name, type } = table.keySchema.partitionKey;
      h = Object.freeze({ name: table.name, def: table.def, keyNames: table.keyNames, partitionKey: { name, type } });
      this.handles.set(table, h);
    }
    return h;
  }

  private seedVersions(table: Table, versions: { readonly writer: string; readonly incarnation: string }): void {
    const store = this.ctx.store;
    const syncDb = this.syncDb;
    for (const { shard, header } of readShardPositions(store, [{ table, handle: this.handle(table) }])) {
      for (let from = header.ackedSeq + 1; ; ) {
        const page = readShardRaw(store, table.name, shard, from, 1000);
        if (page.length === 0) break;
        store.write((txn) => {
          for (const { bytes } of page) {
            const r = decodeStreamRecord(bytes);
            if (r.kind === 'change' && !r.origin) writeVersion(txn, syncDb, table.name, table.keyOf(r.keys).bytes, { hlc: r.hlc, device: versions.writer, incarnation: versions.incarnation });
          }
        });
        from = page[page.length - 1]!.seq + 1;
      }
    }
  }
}
