import type { Counter } from 'prom-client';

/** Sets a counter to a total that a status() keeps (the status, not the counter, owns the count). */
export function setTotal(counter: Counter, value: number, labels: Record<string, string> = {}): void {
  counter.reset();
  counter.inc(labels, value);
}
