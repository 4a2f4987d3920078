/**
 * The hub's forwarder and bounds, read from its status() when scraped: what reached the endpoint,
 * what it refused for good (dead-lettered), the lag per table in records and in seconds, and each
 * bound's fill ratio with a near-limit flag that turns on (hub-bounds.ts NEAR_LIMIT_RATIO) before
 * a cap drops anything, then what the bounds removed.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { HubStatus } from '../hub/start-hub.js';
import type { Refresh } from './store-metrics.js';
import { setTotal } from './set-total.js';

export function registerForwardAndBoundMetrics(registry: Registry, hub: { status(): HubStatus }): Refresh {
  const registers = [registry];
  const counter = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers });
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers });
  const forwarded = counter('edgetable_forward_items_total', 'Items written or deleted at the forward endpoint');
  const permanent = counter('edgetable_forward_permanent_failures_total', 'Records the forward endpoint refused for good (ValidationException and other non-retryable 4xx)');
  const deadLettered = counter('edgetable_forward_dead_lettered_total', 'Records the endpoint refused, kept in the dead-letter table (the cursor moved past them)');
  const errors = counter('edgetable_forward_errors_total', 'Retryable forward failures (5xx, network, credentials), retried with back-off');
  const throttled = counter('edgetable_forward_throttled_total', 'Forward requests throttled by the endpoint, retried with back-off');
  const missed = counter('edgetable_forward_missed_records_total', "Records pruned from the hub log by its cap before they were forwarded");
  const lagRecords = gauge('edgetable_forward_lag_records', 'Change records not yet forwarded, per table', ['table']);
  const lagSeconds = gauge('edgetable_forward_lag_seconds', 'Age of the oldest change record not yet forwarded, per table (0 when none)', ['table']);
  const refused = gauge('edgetable_forward_refused', '1 when the forwarder did not start (no credentials)');
  const logRecords = gauge('edgetable_hub_log_records', "Records the hub's change logs hold, over every table");
  const logFill = gauge('edgetable_hub_log_fill_ratio', "The fullest hub table's change-log records / the cap; the cap prunes unread records past 1");
  const logNear = gauge('edgetable_hub_log_near_limit', '1 once the fill ratio reaches 0.8, before the cap drops anything');
  const logDropped = counter('edgetable_hub_log_dropped_unread_total', 'Hub log records the cap pruned before a reader (device, forwarder) had them');
  const dlItems = gauge('edgetable_dead_letters_items', 'Items in the dead-letter table');
  const dlFill = gauge('edgetable_dead_letters_fill_ratio', 'Dead letters / their cap; past 1 the oldest are dropped');
  const dlNear = gauge('edgetable_dead_letters_near_limit', '1 once the fill ratio reaches 0.8, before the cap drops anything');
  const dlRemoved = counter('edgetable_dead_letters_removed_total', 'Dead letters deleted: reason expired (retention) or dropped (the cap, oldest first)', ['reason']);
  return () => {
    const s = hub.status();
    const f = s.forward;
    if (f) {
      setTotal(forwarded, f.forwarded);
      setTotal(permanent, f.permanentFailures);
      setTotal(deadLettered, f.deadLettered);
      setTotal(errors, f.errors);
      setTotal(throttled, f.throttled);
      setTotal(missed, f.missedRecords);
      lagRecords.reset();
      lagSeconds.reset();
      for (const l of f.lag) {
        lagRecords.set({ table: l.table }, l.records);
        lagSeconds.set({ table: l.table }, l.oldestUnforwardedAgeMs / 1000);
      }
      refused.set(f.refused !== undefined ? 1 : 0);
    }
    const b = s.bounds;
    if (b) {
      logRecords.set(b.hubLog.records);
      logFill.set(b.hubLog.fillRatio);
      logNear.set(b.hubLog.nearLimit ? 1 : 0);
      setTotal(logDropped, b.hubLog.droppedUnread);
      dlItems.set(b.deadLetters.items);
      dlFill.set(b.deadLetters.fillRatio);
      dlNear.set(b.deadLetters.nearLimit ? 1 : 0);
      dlRemoved.reset();
      dlRemoved.inc({ reason: 'expired' }, b.deadLetters.expired);
      dlRemoved.inc({ reason: 'dropped' }, b.deadLetters.dropped);
    }
  };
}
