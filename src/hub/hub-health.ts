/**
 * The hub's counters, its last error and its most recent rejections: what status() reports of the
 * handlers and timers. One instance per hub; every handler counts into it, none ends the process.
 */
import type { Rejection } from './hub-types.js';

const MAX_REJECTIONS_KEPT = 100;

/** The counters status() spreads, in the order it reports them. */
export type HubCounters = {
  batchesApplied: number;
  recordsApplied: number;
  recordsSuperseded: number;
  duplicateRecords: number;
  rejectedTotal: number;
  refusedBatches: number;
  deadLetteredRecords: number;
  clockRefused: number;
  unauthorizedRecords: number;
  unauthorizedSchemas: number;
  versionConflicts: number;
  applyErrors: number;
  catalogRetries: number;
  versionsCollected: number;
  logRecordsPruned: number;
  refusedDeviceMessages: number;
  staleSchemas: number;
};

export class HubHealth {
  readonly counters: HubCounters = {
    batchesApplied: 0,
    recordsApplied: 0,
    recordsSuperseded: 0,
    duplicateRecords: 0,
    rejectedTotal: 0,
    refusedBatches: 0,
    deadLetteredRecords: 0,
    clockRefused: 0,
    unauthorizedRecords: 0,
    unauthorizedSchemas: 0,
    versionConflicts: 0,
    applyErrors: 0,
    catalogRetries: 0,
    versionsCollected: 0,
    logRecordsPruned: 0,
    refusedDeviceMessages: 0,
    staleSchemas: 0,
  };
  /** The most recent error of any kind (status().lastError, before the link's own). */
  lastError: string | undefined;
  /** The most recent rejections, at most MAX_REJECTIONS_KEPT, oldest first. */
  readonly rejected: Rejection[] = [];

  constructor(private readonly onReject?: (rejection: Rejection) => void) {}

  /** An error that is counted in applyErrors and reported as lastError; never fatal. */
  failed(message: string): void {
    this.counters.applyErrors += 1;
    this.lastError = message;
  }

  reject(topic: string, reason: string): void {
    const r = { topic, reason, at: Date.now() };
    this.counters.rejectedTotal += 1;
    this.rejected.push(r);
    if (this.rejected.length > MAX_REJECTIONS_KEPT) this.rejected.shift();
    this.onReject?.(r);
  }
}
