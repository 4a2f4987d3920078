/**
 * The bridge's counters and their snapshot file, so `edgetable bridge-status` can read them from
 * another process. The file is JSON, replaced atomically (write to a temp file, rename), at most
 * once per BRIDGE_STATUS_INTERVAL_MS and once more on stop:
 *
 *   <store path>/bridge-status.json = BridgeStatus (format 1)
 *
 * Counter identities: totals.received = written + duplicate + corrupt + refused + deferred + failed
 * + frames pending (in a batch being filled, or waiting for a retry after a storage error). A device's `corrupt` counts corrupt messages from a source (UDP address,
 * serial port, MQTT topic) whose last valid frame came from that device: a corrupt frame's own
 * device id is not trustworthy.
 */
import { readFileSync } from 'node:fs';
import { chmod, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileModeIn } from '../storage/file-modes.js';
import type { FrameErrorKind } from '../codec/sensor-frame.js';
import { log } from '../log/logger.js';

export const BRIDGE_STATUS_FILE = 'bridge-status.json';

export type FrameCounters = {
  received: number;
  written: number;
  duplicate: number;
  corrupt: number;
};

export type DeviceStatus = FrameCounters & {
  /** The boot the device's seqs belong to (0 = a version 1 node). */
  boot: number;
  /** Greater boot ids seen since the bridge started: each began a new stream of seqs. */
  reboots: number;
  /** The seq last acknowledged (of `boot`): every seq <= it is settled. */
  acked: number;
  lastSeq: number;
  lastSeenAt: string;
};

/**
 * Why a well-formed frame was refused (never written, never acknowledged):
 * - unauthenticated: no key for its device id, and --allow-unauthenticated not given;
 * - unsigned:        its device has a key, the frame carries no MAC;
 * - badMac:          the MAC does not match the device's key (forged, or the wrong key);
 * - staleBoot:       a boot id below the device's current one (a replay, or a frame from before a reboot);
 * - futureBoot:      a boot id, read as the node's clock in seconds at boot, further ahead of the bridge's
 *                    clock than maxBootAheadSeconds: taken, it would refuse every later boot as stale.
 */
export type RefusalKind = 'unauthenticated' | 'unsigned' | 'badMac' | 'staleBoot' | 'futureBoot';

export type BridgeTotals = FrameCounters & {
  corruptByKind: Record<FrameErrorKind, number>;
  refused: number;
  refusedByKind: Record<RefusalKind, number>;
  /** Frames not taken because too many were pending while commits failed: the node resends them. */
  deferred: number;
  /** Frames dropped because their batch failed for a reason other than storage (e.g. validation). */
  failed: number;
  /** Commits that failed with a StorageError; their batches are kept and retried after a backoff. */
  storageErrors: number;
  /** Two frames of one device with one key (same ts): the later seq's item replaced the earlier. */
  keyCollisions: number;
  batches: number;
  acksSent: number;
};

export type BridgeStatus = {
  format: 1;
  pid: number;
  startedAt: string;
  updatedAt: string;
  /** False once stop() has completed. */
  running: boolean;
  table: string;
  udpPort: number | null;
  serial: string[];
  mqtt: { url: string; topic: string } | null;
  totals: BridgeTotals;
  /** The last storage error, and the backoff in force (0 = commits are succeeding). */
  storage: { lastError: string | null; lastErrorAt: string | null; backoffMs: number; pendingFrames: number };
  devices: Record<string, DeviceStatus>;
};

export function emptyTotals(): BridgeTotals {
  return {
    received: 0,
    written: 0,
    duplicate: 0,
    corrupt: 0,
    corruptByKind: { crc: 0, truncated: 0, oversized: 0, malformed: 0, version: 0 },
    refused: 0,
    refusedByKind: { unauthenticated: 0, unsigned: 0, badMac: 0, staleBoot: 0, futureBoot: 0 },
    deferred: 0,
    failed: 0,
    storageErrors: 0,
    keyCollisions: 0,
    batches: 0,
    acksSent: 0,
  };
}

export function statusFilePath(storePath: string): string {
  return storePath.endsWith('.json') ? storePath : join(storePath, BRIDGE_STATUS_FILE);
}

/** The last snapshot a bridge wrote for the store at `storePath` (or that .json file), or undefined. */
export function readBridgeStatus(storePath: string): BridgeStatus | undefined {
  let text: string;
  try {
    text = readFileSync(statusFilePath(storePath), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const status = JSON.parse(text) as BridgeStatus;
  if (status.format !== 1) throw new Error(`${statusFilePath(storePath)}: unknown bridge status format ${String(status.format)}`);
  return status;
}

/**
 * Writes snapshots without blocking ingest: one write in flight at a time, at most one per
 * interval; `flush()` writes the latest snapshot now (used by stop()).
 */
export class StatusFileWriter {
  readonly #file: string;
  readonly #snapshot: () => BridgeStatus;
  readonly #timer: NodeJS.Timeout;
  #dirty = true;
  #writing: Promise<void> = Promise.resolve();
  /** Warn once per failure streak (a full disk fails every snapshot). */
  #failing = false;

  constructor(file: string, intervalMs: number, snapshot: () => BridgeStatus) {
    this.#file = file;
    this.#snapshot = snapshot;
    this.#timer = setInterval(() => {
      if (this.#dirty) void this.flush();
    }, intervalMs);
    this.#timer.unref();
  }

  markDirty(): void {
    this.#dirty = true;
  }

  flush(): Promise<void> {
    this.#dirty = false;
    const body = JSON.stringify(this.#snapshot(), null, 2);
    const tmp = `${this.#file}.${process.pid}.tmp`;
    this.#writing = this.#writing
      .then(() => writeFile(tmp, body, { mode: 0o600 }))
      .then(() => chmod(tmp, fileModeIn(dirname(this.#file)))) // as the store's files, whatever the umask
      .then(() => rename(tmp, this.#file))
      .then(() => {
        this.#failing = false;
      })
      .catch((e: unknown) => {
        this.#dirty = true; // try again next interval
        if (!this.#failing) log('bridge').warn({ err: e }, `bridge: cannot write ${this.#file}: ${(e as Error).message}`);
        this.#failing = true;
      });
    return this.#writing;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
