/**
 * The device's side of a first-sync base read (replication/base-read.ts): per table, one page at
 * a time is read, sent as an ordinary sync batch on the shard BASE_SHARD and held in memory until
 * the hub acknowledges it; then the durable cursor moves past it and the next page is read. A page
 * unacknowledged after ackTimeoutMs, or in flight when the link drops, goes again byte for byte
 * (same sequences, the hub answers a duplicate). After a restart the agent takes a new page
 * number first (base-read-state.ts), so a re-read page never reuses sequences the hub may have
 * applied to other items.
 *
 * The batch names `after` = the page's first sequence - 1, so the hub does not count the jump
 * between page numbers as lost records.
 *
 * A page reads items as they are, so in a durability whose commits are readable before they are
 * durable ('interval', 'relaxed') it may hold a write a power cut could still take back: such a
 * page is sent only once a flush begun after it was read has completed (`whenDurable`).
 */
import { BASE_PAGE_STRIDE, BASE_SHARD, type BaseReadPage as BasePage, type BaseReadPort, type BaseReadProgress } from '../replication/replica-types.js';
import { encodeSyncBatch, type Compression, type SyncAck } from './protocol/sync-batch.js';
import type { TableBaseStatus } from './sync-options.js';

export type BaseSenderOptions = {
  readonly deviceId: string;
  readonly incarnation: string;
  readonly ackTimeoutMs: number;
  readonly batchMaxRecords: number;
  readonly batchMaxBytes: number;
  readonly compression: Compression;
  readonly topic: (table: string, shard: number) => string;
  /** QoS 1 publish; false when the link is down. */
  readonly publish: (topic: string, payload: Uint8Array) => boolean;
  /** Asks the agent for another pass (a page was committed, a session began). */
  readonly kick: () => void;
  readonly onError: (err: unknown) => void;
  /** Null when every committed write is durable; otherwise a flush begun now (Replica.flush). */
  readonly whenDurable: () => Promise<void> | null;
};

type TableBase = {
  readonly tableId: string;
  progress: BaseReadProgress | undefined;
  ready: boolean;
  page: BasePage | undefined;
  payload: Uint8Array | undefined;
  sentAt: number | undefined;
  retryAt: number;
  committing: boolean;
  /** The page read waits for a flush begun after the read (see the header); 'retry' after that flush failed. */
  held: 'no' | 'flushing' | 'retry';
  /** Acknowledged in this session, and when it began, for the rate. */
  sessionAcked: number;
  readonly sessionStartMs: number;
};

export class BaseSender {
  private readonly tables = new Map<string, TableBase>();
  batchesSent = 0;
  wireBytesSent = 0;
  recordsAcked = 0;
  refusedRecords = 0;

  constructor(
    private readonly port: BaseReadPort,
    private readonly options: BaseSenderOptions,
  ) {}

  /** Sends the table's next page when due. `tableId`: the table's current one. */
  sendDue(table: string, tableId: string, now: number): void {
    let t = this.tables.get(table);
    if (!t || t.tableId !== tableId) {
      t = this.begin(table, tableId, now);
      return;
    }
    if (!t.ready || t.committing || !t.progress || t.progress.done || t.progress.tableId !== tableId) return;
    if (!t.page) {
      const page = this.port.readPage(table, this.options.batchMaxRecords, this.options.batchMaxBytes);
      if (!page || page.tableId !== tableId) return;
      t.page = page;
      if (page.records.length === 0) {
        void this.commit(table, t, page);
        return;
      }
      t.payload = encodeSyncBatch(
        { deviceId: this.options.deviceId, incarnation: this.options.incarnation, table, tableId, shard: BASE_SHARD, parent: undefined, records: page.records, after: page.page * BASE_PAGE_STRIDE },
        this.options.compression,
      );
      this.awaitDurable(t);
    }
    if (t.held === 'retry') this.awaitDurable(t);
    if (t.held !== 'no') return;
    if (t.sentAt !== undefined && now - t.sentAt < this.options.ackTimeoutMs) return;
    if (t.retryAt > now || t.payload === undefined) return;
    if (!this.options.publish(this.options.topic(table, BASE_SHARD), t.payload)) return;
    t.sentAt = now;
    this.batchesSent += 1;
    this.wireBytesSent += t.payload.length;
  }

  /** An ack on the base shard of `table` (whose current TableId is `tableId`); resolves once recorded. */
  async onAck(ack: SyncAck, tableId: string): Promise<void> {
    const t = this.tables.get(ack.table);
    const page = t?.page;
    if (!t || t.tableId !== tableId || !page || t.committing) return;
    if (ack.status === 'retry') {
      t.sentAt = undefined;
      t.retryAt = Date.now() + this.options.ackTimeoutMs;
      return;
    }
    if (ack.status === 'conflict') return; // the agent stops the table; this page goes again later
    // An ack below this page's first sequence is a late one of an earlier page.
    if (ack.seq < page.page * BASE_PAGE_STRIDE + 1) return;
    const refused = ack.status === 'refused';
    if (await this.commit(ack.table, t, page)) {
      if (refused) this.refusedRecords += page.records.length;
      else this.recordsAcked += page.records.length;
    }
  }

  /**
   * The table's page in flight goes again at `atMs` (0: when the agent next lets it: after a
   * conflict, only as the conflict's probe).
   */
  resendAfter(table: string, atMs: number): void {
    const t = this.tables.get(table);
    if (!t) return;
    t.sentAt = undefined;
    t.retryAt = atMs;
  }

  /** Whatever was in flight may be lost with the link: it goes again once online. */
  linkLost(): void {
    for (const t of this.tables.values()) {
      t.sentAt = undefined;
      t.retryAt = 0;
    }
  }

  /**
   * True when the table has no base read left to send (none, or done). Read from the store, not
   * from this session: a table re-created a moment ago has a new one.
   */
  done(table: string): boolean {
    const progress = this.port.progress(table);
    return progress === undefined || progress.done;
  }

  status(table: string, now: number): TableBaseStatus | undefined {
    const progress = this.port.progress(table);
    if (progress === undefined) return undefined;
    const session = this.tables.get(table);
    const t = session?.tableId === progress.tableId ? session : undefined;
    const inFlight = t?.page && t.sentAt !== undefined ? t.page.records.length : 0;
    const seconds = t ? (now - t.sessionStartMs) / 1000 : 0;
    return {
      total: progress.total,
      acked: progress.acked,
      sent: progress.acked + inFlight,
      itemsPerSecond: t && seconds > 0 ? Math.round(t.sessionAcked / seconds) : 0,
      startedMs: progress.startedMs,
      done: progress.done,
    };
  }

  private begin(table: string, tableId: string, now: number): TableBase {
    const t: TableBase = { tableId, progress: undefined, ready: false, page: undefined, payload: undefined, sentAt: undefined, retryAt: 0, committing: false, held: 'no', sessionAcked: 0, sessionStartMs: now };
    this.tables.set(table, t);
    this.port.begin(table).then(
      (progress) => {
        t.progress = progress;
        t.ready = true;
        this.options.kick();
      },
      (err: unknown) => {
        if (this.tables.get(table) === t) this.tables.delete(table); // begun again on a later pass
        this.options.onError(err);
      },
    );
    return t;
  }

  /** Holds the page just read until a flush begun now has completed; a failed flush is begun again on the next pass. */
  private awaitDurable(t: TableBase): void {
    const flush = this.options.whenDurable();
    if (flush === null) {
      t.held = 'no';
      return;
    }
    t.held = 'flushing';
    flush.then(
      () => {
        t.held = 'no';
        this.options.kick();
      },
      (err: unknown) => {
        t.held = 'retry';
        this.options.onError(err);
      },
    );
  }

  /** True once the page is committed. */
  private async commit(table: string, t: TableBase, page: BasePage): Promise<boolean> {
    t.committing = true;
    try {
      t.progress = await this.port.commit(table, page);
      t.sessionAcked += page.records.length;
      t.page = undefined;
      t.payload = undefined;
      t.sentAt = undefined;
      return true;
    } catch (err) {
      // The page's number may have been applied at the hub: a new session takes a fresh one.
      if (this.tables.get(table) === t) this.tables.delete(table);
      this.options.onError(err);
      return false;
    } finally {
      t.committing = false;
      this.options.kick();
    }
  }
}
