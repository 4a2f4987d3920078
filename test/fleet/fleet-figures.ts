/**
 * The fleet test's measurements. Throughput comes from the hub's counters, sampled every second:
 * records applied from devices (device to hub), down records sent (hub to devices), items written
 * at the endpoint (hub to endpoint). A hub restart starts its counters at zero again; a sample
 * lower than the previous one is counted as new work since the restart.
 */
import type { HubStatus } from '../../src/hub/start-hub.js';
import { MAX_ITEM_BYTES } from '../../src/model/limits.js';
import { itemSize } from '../../src/model/item-size.js';
import type { Item } from '../../src/model/attribute-value.js';
import type { Op } from '../sync/harness/workload.js';
import { VERSION_ATTRIBUTE } from '../../src/hub/forward/version-attribute.js';

type Counter = { total: number; prev: number };

export class Throughput {
  private readonly counters = { up: { total: 0, prev: 0 }, down: { total: 0, prev: 0 }, endpoint: { total: 0, prev: 0 } };
  private t0 = 0;
  private t1 = 0;

  start(ms: number): void {
    this.t0 = ms;
  }

  stop(ms: number): void {
    this.t1 = ms;
  }

  sample(s: HubStatus): void {
    add(this.counters.up, s.recordsApplied);
    add(this.counters.down, s.down?.recordsSent ?? 0);
    add(this.counters.endpoint, s.forward?.forwarded ?? 0);
  }

  /** Records and records per second over the run (schedule and quiescence). */
  figures(): { seconds: number; up: number; down: number; endpoint: number } {
    const seconds = Math.max(0.001, (this.t1 - this.t0) / 1000);
    return { seconds, up: this.counters.up.total, down: this.counters.down.total, endpoint: this.counters.endpoint.total };
  }
}

function add(c: Counter, value: number): void {
  c.total += value >= c.prev ? value - c.prev : value;
  c.prev = value;
}

/**
 * The attributes that make a put the endpoint refuses and the hub takes: a string attribute that
 * brings the item to 10 bytes under DynamoDB's 400 KB, so the forwarder's version attribute
 * (`_et_hlc` and its 26-character value) pushes it over (ValidationException at the endpoint).
 */
export function poisonAttributes(op: Op, by: string): Record<string, unknown> {
  const item = { site: { S: op.site }, job: { S: op.job }, wid: { S: op.wid }, by: { S: by }, v: { N: String(op.v) }, blob: { S: '' } } as Item;
  const fill = MAX_ITEM_BYTES - 10 - itemSize(item);
  const versionBytes = VERSION_ATTRIBUTE.length + 26;
  if (versionBytes <= 10) throw new Error('the version attribute no longer pushes the poison item over the limit');
  return { blob: { S: 'x'.repeat(fill) } };
}
