/**
 * Prometheus metrics of one process (prom-client lives only in this folder). `createMetrics`
 * registers what its sources can report; `text()` reads every figure that needs a store read or
 * a status() now (on scrape, never on a timer) and renders the text exposition format. Every name
 * starts with `edgetable_`, the process's own (CPU, RSS, event-loop lag, heap) included. The
 * server answers it at GET /metrics (server/start-server.ts, server/metrics-server.ts).
 */
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { BridgeStatus } from '../bridge/bridge-status.js';
import type { Edgetable } from '../edgetable.js';
import type { HubStatus } from '../hub/start-hub.js';
import type { SyncStatus } from '../sync/sync-options.js';
import { registerBridgeMetrics, registerHubMetrics, registerSyncMetrics } from './link-metrics.js';
import { registerRequestMetrics, type RequestMetrics } from './request-metrics.js';
import { registerStoreMetrics, type Refresh } from './store-metrics.js';

export type MetricSources = {
  readonly db?: Edgetable;
  readonly hub?: { status(): HubStatus };
  readonly bridge?: { status(): BridgeStatus };
  readonly sync?: { status(): SyncStatus };
};

export type EdgetableMetrics = RequestMetrics & {
  readonly contentType: string;
  /** The exposition text, every scraped figure read now. */
  text(): Promise<string>;
};

export function createMetrics(sources: MetricSources): EdgetableMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'edgetable_' });
  const requests = registerRequestMetrics(registry);
  const refreshes: Refresh[] = [];
  if (sources.db) refreshes.push(registerStoreMetrics(registry, sources.db));
  if (sources.hub) refreshes.push(registerHubMetrics(registry, sources.hub));
  if (sources.bridge) refreshes.push(registerBridgeMetrics(registry, sources.bridge));
  if (sources.sync) refreshes.push(registerSyncMetrics(registry, sources.sync));
  return {
    contentType: registry.contentType,
    record: requests.record,
    refuse: requests.refuse,
    async text() {
      for (const refresh of refreshes) refresh();
      return registry.metrics();
    },
  };
}
