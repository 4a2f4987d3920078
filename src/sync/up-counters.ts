/** The up direction's counters that status() reports (sync-options.ts SyncStatus), log batches only. */
export type UpCounters = {
  batchesSent: number;
  recordsAcked: number;
  wireBytesSent: number;
  rejectedAcks: number;
  refusedBatches: number;
  refusedRecords: number;
  staleAcks: number;
  clockRefused: number;
  clockAhead: number;
};

export function newUpCounters(): UpCounters {
  return { batchesSent: 0, recordsAcked: 0, wireBytesSent: 0, rejectedAcks: 0, refusedBatches: 0, refusedRecords: 0, staleAcks: 0, clockRefused: 0, clockAhead: 0 };
}
