/**
 * Which device each link source (`udp:10.0.0.7:50123`) last sent for, so a corrupt frame from it
 * (which names no device) is counted on that device. A node gets a new UDP port every time it
 * restarts, so over months the sources of a fleet are unbounded: only the `limit` most recently
 * heard are kept (a Map's insertion order, refreshed on every frame, is the recency order).
 */
export const DEFAULT_RECENT_SOURCES = 1024;

export class RecentSources {
  readonly #devices = new Map<string, string>();

  constructor(readonly limit = DEFAULT_RECENT_SOURCES) {}

  /** Records that `source` just sent a frame of `deviceId`; forgets the least recently heard source beyond the limit. */
  heard(source: string, deviceId: string): void {
    this.#devices.delete(source);
    this.#devices.set(source, deviceId);
    if (this.#devices.size > this.limit) this.#devices.delete(this.#devices.keys().next().value!);
  }

  /** The device `source` last sent for, if it is among the recent ones. */
  deviceOf(source: string): string | undefined {
    return this.#devices.get(source);
  }

  get size(): number {
    return this.#devices.size;
  }
}
