/**
 * Asynchronous work that still holds a descriptor of a store's folder (a flush on the thread pool,
 * an LMDB worker holding the native env): counted, so that a closed store can say when the last
 * of them has let go (Store.released(): what an unmount after close() needs).
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Counts `work` until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.count += 1;
    const done = (): void => {
      this.count -= 1;
      if (this.count === 0) for (const resolve of this.waiters.splice(0)) resolve();
    };
    work.then(done, done);
    return work;
  }

  /** Resolves once nothing counted is running (at once when nothing is). */
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}
