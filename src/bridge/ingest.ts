/**
 * The transport-independent heart of the bridge: decode -> dedup -> group into one BatchWriteItem
 * (readings + each device's DedupState, one durable LMDB txn) -> after the commit returns, ack
 * each device's highest contiguous settled seq to every source that sent one of its frames.
 *
 * Contract with transports: `accept(bytes, source)` takes one raw frame (a datagram, a COBS
 * message already split and decoded, an MQTT payload); it never throws for bad bytes.
 * `source.reply(rawAck)` must not throw either: a lost ack is repaired by the next one.
 *
 * Group commit: a full batch is sealed, not committed at once; the sealed batches (and the open
 * one) are committed together in ONE store write group once an event-loop turn brings no new
 * frame (the sockets are drained; at most 16 turns), or as soon as `groupMaxBatches` are sealed.
 * The group goes through store.writeAsync (storage/async-commits.ts): computed on
 * the event loop, committed and flushed on libuv workers, so frames keep arriving meanwhile. Each
 * BatchWriteItem stays whole (readings + the dedup states of its devices, chained through the
 * earlier batches of the group that succeeded), and acks are sent only once the group is durable.
 * One group at a time: frames arriving meanwhile form the next one, whose dedup states follow the
 * ones this group made durable. A resend of a frame whose group is still committing is a duplicate
 * of that group and is acknowledged with it, never before its original is durable.
 * groupMaxBatches = 1 commits every batch alone.
 *
 * Who may write (docs/bridge.md, "Keys"): a frame is taken only when its MAC verifies against its
 * device's key, or when the device has no key and unauthenticated frames are allowed. Refusals
 * are counted by kind and never acknowledged.
 *
 * Boots: dedup state is per (device, boot). A greater boot starts a new stream once the old
 * boot's pending frames are committed (until then its frames are deferred: the node resends); a
 * smaller one is refused as stale. Acks carry the boot.
 *
 * Storage errors never escape: a batch whose commit fails with a StorageError stays pending and is
 * retried after a backoff (50 ms doubling to 5 s); nothing in it is acknowledged until it commits.
 * Resends of its frames meanwhile are duplicates of the pending batch. While more than
 * MAX_PENDING_FRAMES wait, new frames are deferred (not taken, not acked: the node resends).
 */
import { decodeSensorFrame, encodeAck, FrameError, verifySensorMac, type SensorFrame } from '../codec/sensor-frame.js';
import type { Edgetable } from '../edgetable.js';
import type { WireItem } from '../model/attribute-value.js';
import { MAX_BATCH_WRITE_REQUESTS } from '../model/limits.js';
import { EdgetableError } from '../model/errors.js';
import { validateItem } from '../model/validate-attribute-value.js';
import { StorageError } from '../storage/storage-error.js';
import { emptyTotals, type BridgeTotals, type DeviceStatus, type RefusalKind } from './bridge-status.js';
import { DEFAULT_MAX_BOOT_AHEAD_SECONDS, applyBase, isBootAhead, isSettled, startBoot, type DedupState } from './dedup-state.js';
import type { NodeKeys } from './node-keys.js';
import type { MapFrame } from './reading-item.js';
import { loadDedupState } from './state-table.js';
import { commitBatchGroup, type GroupOutcome, type OpenBatch } from './batch-group.js';
import type { FrameSource } from './frame-source.js';
import { RecentSources } from './recent-sources.js';
import { log } from '../log/logger.js';

export type IngestOptions = {
  db: Edgetable;
  table: string;
  stateTable: string;
  mapFrame: MapFrame;
  /** The readings table's key attribute names, to spot two frames of one batch with one key. */
  keyNames: readonly string[];
  batchMaxItems: number;
  batchMaxDelayMs: number;
  /** Full batches committed together in one write group, at most. Default 16; 1 = one commit per batch. */
  groupMaxBatches?: number;
  now: () => number;
  /** Called after counters change (the status file writer marks itself dirty). */
  onChange: () => void;
  /** Per-node MAC keys; a device without one is refused unless allowUnauthenticated. */
  keys?: NodeKeys;
  allowUnauthenticated?: boolean;
  /** A greater boot id further ahead of now (as seconds) is refused (dedup-state.ts). Default a day. */
  maxBootAheadSeconds?: number;
};

export const DEFAULT_GROUP_MAX_BATCHES = 16;
/** Frames held uncommitted at most (while storage fails); past it new frames are deferred. */
export const MAX_PENDING_FRAMES = 4096;
const MIN_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 5000;
/** Event-loop turns a group waits at most for frames still queued in the sockets. */
const MAX_GROUP_DRAIN_TURNS = 16;

type DeviceEntry = { state: DedupState; status: DeviceStatus };

export class Ingest {
  readonly totals: BridgeTotals = emptyTotals();
  readonly devices = new Map<string, DeviceEntry>();
  readonly #o: IngestOptions;
  readonly #sourceDevice = new RecentSources();
  readonly #warned = new Set<string>();
  #batch: OpenBatch | null = null;
  /** Full batches waiting for the group commit, in arrival order. */
  #sealed: OpenBatch[] = [];
  #cancelTimer: (() => void) | null = null;
  #groupTimer: NodeJS.Immediate | null = null;
  #closed = false;
  /** The batches of the group being committed (store.writeAsync), and that commit. */
  #inFlight: readonly OpenBatch[] = [];
  #committing: Promise<void> | null = null;
  /** flush() was called while a group was committing: run again when it ends. */
  #flushAgain = false;
  /** Set while commits fail: the delay before the next retry, and its timer. */
  #backoffMs = 0;
  #retryTimer: NodeJS.Timeout | null = null;
  #lastStorageError: { message: string; at: string } | null = null;

  constructor(options: IngestOptions) {
    this.#o = options;
  }

  accept(bytes: Uint8Array, source: FrameSource): void {
    if (this.#closed) return;
    this.totals.received++;
    try {
      this.#accept(bytes, source);
    } catch (e) {
      // Never let a frame end the process (e.g. a storage error reading a device's state).
      this.totals.failed++;
      if (e instanceof StorageError) this.#noteStorageError(e);
      this.#warnOnce(`accept:${(e as Error).name}`, `bridge: a frame from ${source.id} failed and will be resent: ${(e as Error).message}`);
      this.#o.onChange();
    }
  }

  /** Storage state for the status snapshot. */
  storageStatus(): { lastError: string | null; lastErrorAt: string | null; backoffMs: number; pendingFrames: number } {
    return { lastError: this.#lastStorageError?.message ?? null, lastErrorAt: this.#lastStorageError?.at ?? null, backoffMs: this.#backoffMs, pendingFrames: this.#pendingFrames() };
  }

  #accept(bytes: Uint8Array, source: FrameSource): void {
    let frame: SensorFrame;
    try {
      frame = decodeSensorFrame(bytes);
    } catch (e) {
      this.#corrupt(e instanceof FrameError ? e : new FrameError('malformed', String(e)), source);
      return;
    }
    const refusal = this.#authenticate(frame, bytes);
    if (refusal) return this.#refuse(refusal, frame, source);
    let dev = this.#device(frame.deviceId);
    if (frame.boot < dev.state.boot) return this.#refuse('staleBoot', frame, source);
    if (frame.boot > dev.state.boot && isBootAhead(frame.boot, this.#o.now(), this.#o.maxBootAheadSeconds ?? DEFAULT_MAX_BOOT_AHEAD_SECONDS)) return this.#refuse('futureBoot', frame, source);
    if (frame.boot > dev.state.boot) {
      // A new stream: commit what the old boot left pending, then forget its state.
      if (this.#hasPending(frame.deviceId)) void this.flush();
      if (this.#hasPending(frame.deviceId)) return this.#defer(); // committing or failing: the node resends
      dev = this.#device(frame.deviceId);
      if (dev.state.boot !== 0 || dev.status.received > 0) dev.status.reboots++;
      dev.state = startBoot(frame.boot);
      dev.status.boot = frame.boot;
      dev.status.lastSeq = 0;
      dev.status.acked = 0;
    }
    if (!this.#hasPending(frame.deviceId, frame.seq) && this.#pendingFrames() >= MAX_PENDING_FRAMES) return this.#defer();
    this.#sourceDevice.heard(source.id, frame.deviceId);
    dev.status.received++;
    dev.status.lastSeq = Math.max(dev.status.lastSeq, frame.seq);
    dev.status.lastSeenAt = new Date(this.#o.now()).toISOString();
    dev.state = applyBase(dev.state, frame.base);

    if (isSettled(dev.state, frame.seq)) {
      // A resend, or a replay of a captured frame: acked, never written twice.
      this.#duplicate(dev);
      this.#ack(frame.deviceId, dev, source);
      this.#o.onChange();
      return;
    }
    const inBatch = this.#pendingDevice(frame.deviceId, frame.seq);
    if (inBatch?.seqs.has(frame.seq)) {
      // Resent before its batch committed: acknowledged with that batch.
      this.#duplicate(dev);
      inBatch.sources.set(source.id, source);
      this.#o.onChange();
      return;
    }
    let item: WireItem;
    try {
      item = this.#o.mapFrame(frame);
    } catch (e) {
      this.totals.failed++;
      this.#warnOnce('mapFrame', `bridge: mapFrame failed for ${frame.deviceId} seq ${frame.seq}: ${(e as Error).message}`);
      this.#o.onChange();
      return;
    }
    try {
      // A reading the table cannot store (e.g. a number beyond DynamoDB's range) would fail its
      // whole batch and be resent forever: drop it as malformed, yet settle its seq so the node
      // frees it, and keep the rest of the batch.
      validateItem(item);
    } catch (e) {
      if (!(e instanceof EdgetableError)) throw e;
      this.#corrupt(new FrameError('malformed', `a field cannot be stored: ${e.message}`), source);
      this.#add(frame, undefined, source);
      this.#o.onChange();
      return;
    }
    this.#add(frame, item, source);
    this.#o.onChange();
  }

  /** null = take the frame; else why it is refused. */
  #authenticate(frame: SensorFrame, bytes: Uint8Array): RefusalKind | null {
    const key = this.#o.keys?.get(frame.deviceId);
    if (key === undefined) return this.#o.allowUnauthenticated ? null : 'unauthenticated';
    if (!frame.signed) return 'unsigned';
    return verifySensorMac(bytes, key) ? null : 'badMac';
  }

  #refuse(kind: RefusalKind, frame: SensorFrame, source: FrameSource): void {
    this.totals.refused++;
    this.totals.refusedByKind[kind]++;
    this.#warnOnce(`refused:${kind}`, `bridge: refused a frame claiming to be ${frame.deviceId} (boot ${frame.boot}, seq ${frame.seq}) from ${source.id}: ${kind}; further ${kind} refusals are counted, not logged`);
    this.#o.onChange();
  }

  #defer(): void {
    this.totals.deferred++;
    this.#o.onChange();
  }

  /**
   * Starts committing the sealed batches and the open one (one write group through
   * store.writeAsync: computed here, committed and flushed off the event loop) and, once it is
   * durable, sends their acks. One group at a time: called while one commits, it runs again when
   * that one ended. While a storage error's backoff runs, does nothing (the retry timer will),
   * unless `force` (close). Never throws; the returned promise settles when this group ended.
   */
  flush(force = false): Promise<void> {
    if (this.#committing) {
      this.#flushAgain = true;
      return this.#committing;
    }
    if (this.#retryTimer && !force) return Promise.resolve();
    this.#clearTimer();
    const batches = [...this.#sealed, ...(this.#batch && this.#batch.frames > 0 ? [this.#batch] : [])];
    this.#sealed = [];
    this.#batch = null;
    if (batches.length === 0) return Promise.resolve();
    this.#inFlight = batches;
    const committing = commitBatchGroup({ db: this.#o.db, table: this.#o.table, stateTable: this.#o.stateTable, at: this.#o.now(), stateOf: (deviceId) => this.#device(deviceId).state }, batches)
      .then((outcome) => this.#settle(batches, outcome, force))
      .catch((e: unknown) => this.#warnOnce('settle', `bridge: settling a commit failed: ${(e as Error).message}`))
      .finally(() => {
        this.#inFlight = [];
        this.#committing = null;
        if (this.#flushAgain && !this.#closed) {
          this.#flushAgain = false;
          void this.flush();
        }
      });
    this.#committing = committing;
    return committing;
  }

  /** After the group ended: adopt the durable states, ack what committed, keep what failed on storage for a retry. */
  #settle(batches: readonly OpenBatch[], { failures, states }: GroupOutcome, force: boolean): void {
    const { db } = this.#o;
    for (const [deviceId, state] of states) this.#device(deviceId).state = state;
    const retry: OpenBatch[] = [];
    let storageError: StorageError | undefined;
    batches.forEach((batch, i) => {
      const failure = failures[i];
      if (failure instanceof StorageError && !db.store.closed) {
        // Kept whole and retried: nothing in it is acknowledged until it commits.
        retry.push(batch);
        storageError ??= failure;
        return;
      }
      if (failure) {
        let dropped = 0;
        for (const d of batch.devices.values()) dropped += d.dropped;
        this.totals.failed += batch.frames - dropped; // dropped frames were counted as corrupt
        this.#warnOnce(`write:${failure.name}`, `bridge: a batch of ${batch.frames} frames failed and will be resent by the nodes: ${failure.name}: ${failure.message}`);
        return;
      }
      this.totals.batches++;
      for (const [deviceId, d] of batch.devices) {
        const dev = this.#device(deviceId);
        dev.status.written += d.seqs.size - d.dropped;
        this.totals.written += d.seqs.size - d.dropped;
        for (const source of d.sources.values()) this.#ack(deviceId, dev, source);
      }
    });
    if (storageError) this.#noteStorageError(storageError); // one per flush: a group is one commit
    if (retry.length > 0) {
      this.#sealed = [...retry, ...this.#sealed];
      this.#backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(MIN_BACKOFF_MS, this.#backoffMs * 2));
      if (!force && !this.#closed) {
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = null;
          void this.flush();
        }, this.#backoffMs);
      }
    } else if (failures.some((f) => f === null)) {
      this.#backoffMs = 0;
    }
    this.#o.onChange();
  }

  /**
   * Refuses further frames, lets the group in flight end, then commits what is pending (once,
   * whatever the backoff) and sends its acks. Resolves when that commit ended.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    await this.#committing;
    await this.flush(true);
  }

  #noteStorageError(e: StorageError): void {
    this.totals.storageErrors++;
    this.#lastStorageError = { message: `${e.name}${e.code ? ` ${e.code}` : ''}: ${e.message}`, at: new Date(this.#o.now()).toISOString() };
    this.#warnOnce(`storage:${e.code}`, `bridge: a commit failed (${e.message}); retrying with backoff, nothing unwritten is acknowledged`);
  }

  #pendingFrames(): number {
    let n = this.#batch?.frames ?? 0;
    for (const b of this.#sealed) n += b.frames;
    for (const b of this.#inFlight) n += b.frames;
    return n;
  }

  /** Whether deviceId has frames (or, with seq, that seq) waiting in a batch. */
  #hasPending(deviceId: string, seq?: number): boolean {
    for (const b of [...this.#inFlight, ...this.#sealed, ...(this.#batch ? [this.#batch] : [])]) {
      const d = b.devices.get(deviceId);
      if (d && (seq === undefined || d.seqs.has(seq))) return true;
    }
    return false;
  }

  /** Adds a frame's seq (and its reading, unless it was dropped) to the open batch. */
  #add(frame: SensorFrame, item: WireItem | undefined, source: FrameSource): void {
    let batch = this.#batch;
    const newDevice = batch !== null && !batch.devices.has(frame.deviceId);
    // Requests = readings + one state item per device; BatchWriteItem takes at most 25.
    if (batch && (batch.items.size + batch.devices.size + (newDevice ? 2 : 1) > MAX_BATCH_WRITE_REQUESTS || batch.frames >= this.#o.batchMaxItems)) {
      this.#seal();
      batch = null;
    }
    batch ??= this.#batch = { items: new Map(), frames: 0, devices: new Map() };
    let d = batch.devices.get(frame.deviceId);
    if (!d) batch.devices.set(frame.deviceId, (d = { seqs: new Set(), dropped: 0, sources: new Map() }));
    d.seqs.add(frame.seq);
    d.sources.set(source.id, source);
    batch.frames++;
    if (item === undefined) {
      d.dropped++;
      return this.#scheduleFlush(batch);
    }
    const key = JSON.stringify(this.#o.keyNames.map((n) => item[n] ?? null));
    const prior = batch.items.get(key);
    if (prior) {
      this.totals.keyCollisions++;
      this.#warnOnce('collision', `bridge: ${frame.deviceId} sent seqs ${prior.seq} and ${frame.seq} with the same key (ts ${frame.ts}); the later seq's reading is kept`);
      if (prior.seq > frame.seq) return;
    }
    batch.items.set(key, { seq: frame.seq, item });
    this.#scheduleFlush(batch);
  }

  #scheduleFlush(batch: OpenBatch): void {
    if (batch.frames >= this.#o.batchMaxItems || batch.items.size + batch.devices.size >= MAX_BATCH_WRITE_REQUESTS) {
      this.#seal();
    } else if (!this.#cancelTimer) {
      if (this.#o.batchMaxDelayMs > 0) {
        const t = setTimeout(() => void this.flush(), this.#o.batchMaxDelayMs);
        this.#cancelTimer = () => clearTimeout(t);
      } else {
        const t = setImmediate(() => void this.flush());
        this.#cancelTimer = () => clearImmediate(t);
      }
    }
  }

  /** Moves the open batch to the sealed ones; commits them when the group is full, else on setImmediate. */
  #seal(): void {
    if (this.#batch) this.#sealed.push(this.#batch);
    this.#batch = null;
    if (this.#sealed.length >= Math.max(1, this.#o.groupMaxBatches ?? DEFAULT_GROUP_MAX_BATCHES)) void this.flush();
    else this.#groupTimer ??= this.#whenDrained(this.totals.received, 0);
  }

  /**
   * Flushes once a turn of the event loop brought no new frame: libuv reads a socket at most 32
   * datagrams per turn, so one setImmediate alone would commit before the queued frames are in.
   */
  #whenDrained(receivedBefore: number, turns: number): NodeJS.Immediate {
    return setImmediate(() => {
      this.#groupTimer = null;
      if (this.totals.received !== receivedBefore && turns < MAX_GROUP_DRAIN_TURNS) this.#groupTimer = this.#whenDrained(this.totals.received, turns + 1);
      else void this.flush();
    });
  }

  /** The pending (not yet committed) entry of deviceId whose batch holds seq, if any. */
  #pendingDevice(deviceId: string, seq: number): { seqs: Set<number>; dropped: number; sources: Map<string, FrameSource> } | undefined {
    const open = this.#batch?.devices.get(deviceId);
    if (open?.seqs.has(seq)) return open;
    for (const batch of [...this.#inFlight, ...this.#sealed]) {
      const d = batch.devices.get(deviceId);
      if (d?.seqs.has(seq)) return d;
    }
    return undefined;
  }

  #device(deviceId: string): DeviceEntry {
    let dev = this.devices.get(deviceId);
    if (!dev) {
      const state = loadDedupState(this.#o.db, this.#o.stateTable, this.#o.table, deviceId);
      dev = { state, status: { received: 0, written: 0, duplicate: 0, corrupt: 0, boot: state.boot, reboots: 0, acked: state.settled, lastSeq: 0, lastSeenAt: '' } };
      this.devices.set(deviceId, dev);
    }
    return dev;
  }

  #duplicate(dev: DeviceEntry): void {
    dev.status.duplicate++;
    this.totals.duplicate++;
  }

  #ack(deviceId: string, dev: DeviceEntry, source: FrameSource): void {
    dev.status.acked = dev.state.settled;
    // boot 0: a version 1 ack. A keyed device gets a signed ack: it frees frames only on our word.
    const key = dev.state.boot === 0 ? undefined : this.#o.keys?.get(deviceId);
    source.reply(encodeAck(deviceId, dev.state.settled, dev.state.boot, key));
    this.totals.acksSent++;
  }

  /** A message refused before decoding (e.g. bad COBS on a serial line): counted like a corrupt frame. */
  reject(error: FrameError, source: FrameSource): void {
    if (this.#closed) return;
    this.totals.received++;
    this.#corrupt(error, source);
  }

  #corrupt(e: FrameError, source: FrameSource): void {
    this.totals.corrupt++;
    this.totals.corruptByKind[e.kind]++;
    const deviceId = this.#sourceDevice.deviceOf(source.id);
    const dev = deviceId === undefined ? undefined : this.devices.get(deviceId);
    if (dev) dev.status.corrupt++;
    this.#warnOnce(`corrupt:${e.kind}`, `bridge: dropped a ${e.kind} frame from ${source.id} (${e.message}); further ${e.kind} frames are counted, not logged`);
    this.#o.onChange();
  }

  #warnOnce(key: string, message: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    log('bridge').warn(message);
  }

  #clearTimer(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = null;
    if (this.#groupTimer) clearImmediate(this.#groupTimer);
    this.#groupTimer = null;
  }
}
