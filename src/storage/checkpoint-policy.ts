/** When the redo log checkpoints (redo-log.ts has the rules a checkpoint keeps). */
/** When a checkpoint starts: after this many logged commits, or this many bytes of log, since the last one. */
export interface CheckpointPolicy {
  readonly commits: number;
  readonly bytes: number;
  /** Pages the map's last page moved by: with the pin, what the commits since dirtied. */
  readonly pages: number;
}
/**
 * Pages freed after the pinned checkpoint cannot be reused until the next one, so data.mdb grows
 * by what the commits between two checkpoints dirty, and LMDB takes a while to reuse them once
 * free. Measured on 4,400 sensor batches of 25 written in a loop that never yields (so a checkpoint
 * lands every ~3 x `commits`: one begun at 1x is overtaken on this thread at 2x more): with
 * `commits` 8 / 16 / 32 the file ends 1.11x / 1.23x / 1.46x what LMDB's durable commits leave, at
 * 494 / 458 / 468 us per batch against their 699; by the map's growth alone (512 pages), 3.2x.
 */
export const DEFAULT_CHECKPOINT_POLICY: CheckpointPolicy = { commits: 16, bytes: 1024 * 1024, pages: 256 };

/** How far along the policy is (1: a checkpoint is due), given the commits, log bytes and map pages since the last one. */
export function checkpointDue(policy: CheckpointPolicy, commits: number, bytes: number, pages: number): number {
  return Math.max(commits / policy.commits, bytes / policy.bytes, pages / policy.pages);
}

/**
 * Where the redo log stands against its policy: the commits logged since the last checkpoint began
 * (its file switch) or completed, and the log size and the map's last page it counts from.
 */
export class CheckpointSchedule {
  private commits = 0;
  private bytesAt: number;
  private pageAt: number;

  constructor(
    private readonly policy: CheckpointPolicy,
    bytes: number,
    page: number,
  ) {
    this.bytesAt = bytes;
    this.pageAt = page;
  }

  /** A commit's record was logged. */
  logged(): void {
    this.commits += 1;
  }

  /** Counts afresh from a log of `bytes` and a map whose last page is `page`. */
  restart(bytes: number, page: number): void {
    this.commits = 0;
    this.bytesAt = bytes;
    this.pageAt = page;
  }

  /** checkpointDue for a log of `bytes` and a map whose last page is `page` now. */
  due(bytes: number, page: number): number {
    return checkpointDue(this.policy, this.commits, bytes - this.bytesAt, page - this.pageAt);
  }
}
