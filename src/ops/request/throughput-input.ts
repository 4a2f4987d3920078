/**
 * ProvisionedThroughput as given (the table's or a global secondary index's), read in the parse
 * step. The schema pass has checked each unit (a number whose whole part is at least 1); whether
 * the member may be given at all depends on the table's billing mode, so create-table-rules.ts
 * readThroughput judges it there.
 */
import { convert, type Converted } from './converted.js';
import { optionalObject } from './request-checks.js';

/**
 * Whole numbers, truncated as Coral reads them. The embedded API can pass NaN or Infinity, which
 * no JSON carries: readThroughput refuses them where it always did, after the billing-mode checks.
 */
export type ThroughputInput = { readonly ReadCapacityUnits: number; readonly WriteCapacityUnits: number };

/** undefined when absent; null is refused (a SerializationException) where the throughput is read. */
export function readThroughputInput(raw: unknown): Converted<ThroughputInput> | undefined {
  if (raw === undefined) return undefined;
  return convert(() => {
    const p = optionalObject(raw, 'ProvisionedThroughput')!;
    return Object.freeze({ ReadCapacityUnits: Math.trunc(p.ReadCapacityUnits as number), WriteCapacityUnits: Math.trunc(p.WriteCapacityUnits as number) });
  });
}
