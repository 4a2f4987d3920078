/**
 * Tells the operator what the request limits refused: at most one warning per period, and only
 * when something was refused in it, so a flood of hostile clients costs a line every few seconds
 * rather than one per connection. Clients see each refusal in their answer (limit-responses.ts).
 */
import { log } from '../log/logger.js';
import type { BodyBudgetStats } from './body-budget.js';
import type { ConnectionGateStats } from './connection-gate.js';

export const LIMIT_REPORT_MS = 10_000;

type Counts = { evicted: number; refused: number; throttled: number };

/** Starts the reports; returns what stops them. */
export function reportLimits(stats: () => { connections: ConnectionGateStats; bodies: BodyBudgetStats }, periodMs = LIMIT_REPORT_MS): () => void {
  const read = (): Counts => {
    const { connections, bodies } = stats();
    return { evicted: connections.evicted, refused: connections.refused, throttled: bodies.refusedRequests };
  };
  let last = read();
  const timer = setInterval(() => {
    const now = read();
    const d = { evicted: now.evicted - last.evicted, refused: now.refused - last.refused, throttled: now.throttled - last.throttled };
    last = now;
    if (d.evicted + d.refused + d.throttled === 0) return;
    log('server').warn(
      { ...d, periodMs },
      `request limits in the last ${periodMs / 1000} s: ${d.evicted} idle connections closed for new ones, ` +
        `${d.refused} connections refused (all busy), ${d.throttled} requests throttled (bodies in flight)`,
    );
  }, periodMs);
  timer.unref();
  return () => clearInterval(timer);
}
