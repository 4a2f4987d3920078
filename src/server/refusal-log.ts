/**
 * API requests refused for their authentication (sigv4.ts), logged without letting a flood of
 * them flood the log: the first refusal after a quiet `intervalMs` is logged at once, with who
 * sent it; later ones are counted and summed up in one line when the interval ends (or at
 * close()). So a client hammering with a wrong key costs at most one line per interval.
 */
import { log } from '../log/logger.js';

export type Refusal = {
  /** DynamoDB's error name, e.g. InvalidSignatureException. */
  readonly reason: string;
  readonly operation: string;
  readonly keyId?: string;
  /** The peer's address. */
  readonly from?: string;
};

export type RefusalLog = { refuse(refusal: Refusal): void; close(): void };

export type RefusalLogOptions = {
  /** Default 10,000 ms. */
  readonly intervalMs?: number;
  /** Where lines go; default warn lines of the `server` logger. */
  readonly write?: (fields: Record<string, unknown>, line: string) => void;
  readonly now?: () => number;
};

const DEFAULT_INTERVAL_MS = 10_000;

export function createRefusalLog(options: RefusalLogOptions = {}): RefusalLog {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const write = options.write ?? ((fields, line) => log('server').warn(fields, line));
  const now = options.now ?? Date.now;
  let lastLineAt = -Infinity;
  const held = new Map<string, number>();
  let last: Refusal | undefined;
  let timer: NodeJS.Timeout | undefined;

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (held.size === 0 || !last) return;
    const byReason = Object.fromEntries(held);
    const total = [...held.values()].reduce((a, b) => a + b, 0);
    const reasons = [...held].map(([reason, n]) => `${n} ${reason}`).join(', ');
    write({ refused: byReason, last: describe(last) }, `${total} more API request${total === 1 ? '' : 's'} refused (${reasons}); the last ${describe(last)}`);
    held.clear();
    lastLineAt = now();
  };

  return {
    refuse(refusal) {
      const at = now();
      if (held.size === 0 && at - lastLineAt >= intervalMs) {
        lastLineAt = at;
        write({ reason: refusal.reason, operation: refusal.operation, keyId: refusal.keyId, from: refusal.from }, `refused API request: ${refusal.reason}, ${describe(refusal)}`);
        return;
      }
      held.set(refusal.reason, (held.get(refusal.reason) ?? 0) + 1);
      last = refusal;
      if (timer === undefined) {
        timer = setTimeout(flush, Math.max(0, lastLineAt + intervalMs - at));
        timer.unref();
      }
    },
    close: flush,
  };
}

function describe(r: Refusal): string {
  return `${r.operation} from ${r.from ?? 'an unknown address'}${r.keyId !== undefined ? ` with access key ${JSON.stringify(r.keyId)}` : ''}`;
}
