/**
 * Durability 'interval': when the redo log's flush, deferred past the writes it covers, runs.
 * A write appends its record and returns; the log is flushed once `intervalMs` has passed since
 * the first append that no flush has covered yet, so a power cut loses at most the writes of the
 * last interval (and of a flush then in flight). Two ways the flush comes due:
 * - a timer, when the event loop turns: the flush runs on the thread pool;
 * - the next append, when the loop has not turned for that long (a program writing in a loop that
 *   never yields): the flush starts on the thread pool from there, and its fdatasync runs while the
 *   loop goes on (only its callback waits for the loop).
 * Any other flush of the log (a checkpoint's, store.sync(), close()) covers every append before it
 * and starts the interval anew. What is left to the program: a write followed by a blocked event
 * loop and no further write waits for the loop to turn.
 */
export class DeferredFlush {
  /** When the first append no flush has covered was made (performance.now()), or null. */
  private since: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Told how long each flush that came due took (metrics/, through Store.onFlush). */
  onFlushed: ((seconds: number) => void) | undefined;

  /** `flush`: a flush of every append so far (it calls covered()); one that fails stops the log until its recover() (the next write, or close()). */
  constructor(
    readonly intervalMs: number,
    private readonly flush: () => Promise<void>,
  ) {}

  /** A write's record was appended and the write returns unflushed. */
  appended(): void {
    if (this.stopped) return;
    const now = performance.now();
    if (this.since === null) {
      this.since = now;
      this.timer = setTimeout(() => this.due(), this.intervalMs);
      this.timer.unref(); // a process that exits without close() loses nothing: the page cache holds the log
      return;
    }
    if (now - this.since >= this.intervalMs) this.due();
  }

  /** A flush of every append so far started. */
  covered(): void {
    this.since = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Whether an append waits for a flush. */
  get waiting(): boolean {
    return this.since !== null;
  }

  /** The log closed: no flush comes due any more. */
  stop(): void {
    this.covered();
    this.stopped = true;
  }

  private due(): void {
    this.covered();
    const started = performance.now();
    this.flush().then(() => this.onFlushed?.((performance.now() - started) / 1000), () => undefined);
  }
}
