/**
 * The bytes of request bodies one server holds at once, across all its connections. A request
 * reserves its declared Content-Length before a byte of its body is read (a chunked body reserves
 * each chunk as it arrives) and gives the reservation back once it is answered, so what the
 * server buffers, parses and works on is bounded by `maxBytes` however many clients send at once.
 *
 * A reservation that does not fit is refused rather than queued: the request is answered at once
 * with a ThrottlingException (which the AWS SDKs retry with backoff), so a client never waits on
 * an open connection for bytes another client holds. Bodies over SMALL_BODY_BYTES together hold at
 * most LARGE_BODY_SHARE of the budget: a flood of large bodies cannot starve ordinary requests.
 */
import { largeBodyBytesInFlight, SMALL_BODY_BYTES } from './request-limits.js';

export type BodyBudgetStats = {
  /** Bytes reserved now, and the part of them reserved by bodies over SMALL_BODY_BYTES. */
  readonly heldBytes: number;
  readonly heldLargeBytes: number;
  /** Requests answered with a ThrottlingException because their body did not fit. */
  readonly refusedRequests: number;
};

/** One request's reservation. grow() after release() is refused; release() twice is harmless. */
export type BodyHold = {
  readonly bytes: number;
  /** Adds `bytes` to the reservation; false (and nothing reserved) when they do not fit now. */
  grow(bytes: number): boolean;
  release(): void;
};

export class BodyBudget {
  readonly #maxBytes: number;
  readonly #maxLargeBytes: number;
  #held = 0;
  #heldLarge = 0;
  #refused = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
    this.#maxLargeBytes = largeBodyBytesInFlight(maxBytes);
  }

  /** A reservation of `bytes` (0 for a body of unknown length), or undefined when they do not fit now. */
  reserve(bytes: number): BodyHold | undefined {
    let held = 0;
    let released = false;
    const hold: BodyHold = {
      get bytes() {
        return held;
      },
      grow: (more) => {
        if (released || !this.#fits(held, held + more)) return false;
        this.#move(held, held + more);
        held += more;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#move(held, 0);
        held = 0;
      },
    };
    return bytes === 0 || hold.grow(bytes) ? hold : undefined;
  }

  /** Counts a request refused for want of budget (the caller answers it). */
  refused(): void {
    this.#refused++;
  }

  stats(): BodyBudgetStats {
    return { heldBytes: this.#held, heldLargeBytes: this.#heldLarge, refusedRequests: this.#refused };
  }

  get maxBytes(): number {
    return this.#maxBytes;
  }

  #fits(from: number, to: number): boolean {
    if (this.#held - from + to > this.#maxBytes) return false;
    return to <= SMALL_BODY_BYTES || this.#heldLarge - large(from) + to <= this.#maxLargeBytes;
  }

  #move(from: number, to: number): void {
    this.#held += to - from;
    this.#heldLarge += large(to) - large(from);
  }
}

/** The bytes a reservation of `bytes` counts against the large-body share. */
function large(bytes: number): number {
  return bytes > SMALL_BODY_BYTES ? bytes : 0;
}
