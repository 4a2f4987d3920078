/**
 * Figures of the parts that move data over links, read from their status() when scraped: the
 * hub's applied, duplicate, rejected and refused records; the bridge's frames received, written and
 * dropped, by reason; the sync agent's broker
 * connection, batches sent and records acknowledged. Counters are set to the status's totals.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { BridgeStatus } from '../bridge/bridge-status.js';
import type { HubStatus } from '../hub/start-hub.js';
import type { SyncStatus } from '../sync/sync-options.js';
import { registerForwardAndBoundMetrics } from './forward-metrics.js';
import { setTotal } from './set-total.js';
import type { Refresh } from './store-metrics.js';

type Counters = Record<string, Counter>;

function counters(registry: Registry, specs: Record<string, [name: string, help: string, labelNames?: string[]]>): Counters {
  const out: Counters = {};
  for (const [key, [name, help, labelNames]] of Object.entries(specs)) out[key] = new Counter({ name, help, labelNames: labelNames ?? [], registers: [registry] });
  return out;
}

/** Sets a counter to a total that its source keeps. */
function onlineGauge(registry: Registry, name: string, help: string): Gauge {
  return new Gauge({ name, help, registers: [registry] });
}

export function registerHubMetrics(registry: Registry, hub: { status(): HubStatus }): Refresh {
  const c = counters(registry, {
    batches: ['edgetable_hub_batches_applied_total', 'Sync batches the hub applied and acknowledged'],
    applied: ['edgetable_hub_records_applied_total', 'Change records the hub applied'],
    superseded: ['edgetable_hub_records_superseded_total', 'Change records older than the version the hub holds (last writer wins)'],
    duplicate: ['edgetable_hub_records_duplicate_total', 'Change records received again after being applied'],
    rejected: ['edgetable_hub_batches_rejected_total', 'Sync batches the hub rejected (nothing applied, the device sends again)'],
    refused: ['edgetable_hub_batches_refused_total', 'Sync batches the hub refused for good (their records go to the dead-letter table)'],
    deadLettered: ['edgetable_hub_records_dead_lettered_total', 'Change records of refused batches kept in the dead-letter table'],
    versionConflicts: ['edgetable_hub_version_conflicts_total', 'Device writes refused by a table version rule (optimistic concurrency; the device is told)'],
    applyErrors: ['edgetable_hub_apply_errors_total', 'Errors while applying a batch (answered retry) or collecting versions'],
    catalogRetries: ['edgetable_hub_catalog_retries_total', "Batch applies re-run because another process changed the hub table's definition meanwhile"],
    refusedDevices: ['edgetable_hub_refused_device_messages_total', "Batches and schemas of devices not on the hub's allow-list (ignored)"],
    unauthorized: ['edgetable_hub_unauthorized_records_total', "Device records outside the device's write grants (refused, dead-lettered, told to the device)"],
    unauthorizedSchemas: ['edgetable_hub_unauthorized_schemas_total', 'Schema announcements of tables outside the write grants (no table created)'],
    clockRefused: ['edgetable_hub_records_clock_refused_total', "Device records stamped more than maxClockDriftMs ahead of the hub's clock (refused, dead-lettered)"],
  });
  const online = onlineGauge(registry, 'edgetable_hub_broker_connected', '1 while the hub is connected to its broker');
  const conflicts = new Gauge({ name: 'edgetable_hub_schema_conflicts', help: "Device tables whose definition conflicts with the hub's (answered 'conflict')", registers: [registry] });
  const forwardAndBounds = registerForwardAndBoundMetrics(registry, hub);
  const standby = new Gauge({ name: 'edgetable_hub_standby', help: '1 while the hub stands by because another hub consumes its namespace (it applies nothing)', registers: [registry] });
  const hubsSeen = new Gauge({ name: 'edgetable_hub_hubs_seen', help: 'Live hubs on the namespace, this one included (more than 1 outside a share group: see status().hubs)', registers: [registry] });
  return () => {
    forwardAndBounds();
    const s = hub.status();
    setTotal(c['batches']!, s.batchesApplied);
    setTotal(c['applied']!, s.recordsApplied);
    setTotal(c['superseded']!, s.recordsSuperseded);
    setTotal(c['duplicate']!, s.duplicateRecords);
    setTotal(c['rejected']!, s.rejectedTotal);
    setTotal(c['refused']!, s.refusedBatches);
    setTotal(c['deadLettered']!, s.deadLetteredRecords);
    setTotal(c['versionConflicts']!, s.versionConflicts);
    setTotal(c['applyErrors']!, s.applyErrors);
    setTotal(c['catalogRetries']!, s.catalogRetries);
    setTotal(c['refusedDevices']!, s.refusedDeviceMessages);
    setTotal(c['unauthorized']!, s.unauthorizedRecords);
    setTotal(c['unauthorizedSchemas']!, s.unauthorizedSchemas);
    setTotal(c['clockRefused']!, s.clockRefused);
    conflicts.set(s.schemaConflicts.length);
    standby.set(s.role === 'standby' ? 1 : 0);
    hubsSeen.set(s.hubs.length);
    online.set(s.online ? 1 : 0);
  };
}

export function registerBridgeMetrics(registry: Registry, bridge: { status(): BridgeStatus }): Refresh {
  const c = counters(registry, {
    received: ['edgetable_bridge_frames_received_total', 'Sensor frames the bridge received'],
    written: ['edgetable_bridge_frames_written_total', 'Sensor frames written to the table (durable, acknowledged)'],
    dropped: ['edgetable_bridge_frames_dropped_total', 'Sensor frames not written, by reason: duplicate, corrupt, refused (authentication), deferred (commits failing; the node resends), failed (batch refused)', ['reason']],
    batches: ['edgetable_bridge_batches_total', 'Durable batches the bridge committed'],
    storageErrors: ['edgetable_bridge_storage_errors_total', 'Commits of the bridge that failed with a storage error (retried after a back-off)'],
  });
  return () => {
    const t = bridge.status().totals;
    setTotal(c['received']!, t.received);
    setTotal(c['written']!, t.written);
    const dropped = c['dropped']!;
    dropped.reset();
    dropped.inc({ reason: 'duplicate' }, t.duplicate);
    dropped.inc({ reason: 'corrupt' }, t.corrupt);
    dropped.inc({ reason: 'refused' }, t.refused);
    dropped.inc({ reason: 'deferred' }, t.deferred);
    dropped.inc({ reason: 'failed' }, t.failed);
    setTotal(c['batches']!, t.batches);
    setTotal(c['storageErrors']!, t.storageErrors);
  };
}

export function registerSyncMetrics(registry: Registry, sync: { status(): SyncStatus }): Refresh {
  const c = counters(registry, {
    batches: ['edgetable_sync_batches_sent_total', 'Sync batches published to the hub'],
    acked: ['edgetable_sync_records_acked_total', 'Change records the hub acknowledged'],
    wire: ['edgetable_sync_wire_bytes_sent_total', 'Bytes of sync batches published'],
    rejected: ['edgetable_sync_retry_acks_total', 'Acknowledgements asking to send a batch again (the hub applied nothing)'],
    refused: ['edgetable_sync_records_refused_total', 'Records of batches the hub refused for good (the cursor moved past them)'],
    storageErrors: ['edgetable_sync_storage_errors_total', 'Storage errors of polls and acknowledgements (retried after a back-off)'],
    rejectedWrites: ['edgetable_sync_writes_rejected_total', "Writes of this device the hub refused one by one: a table's version rule, its write grants, a clock too far ahead"],
  });
  const online = onlineGauge(registry, 'edgetable_sync_broker_connected', '1 while the sync agent is connected to its broker');
  const conflicts = new Gauge({ name: 'edgetable_sync_tables_in_conflict', help: "Synced tables not sent because their definition conflicts with the hub's", registers: [registry] });
  // A first sync's base read (docs/sync.md): the items it sends, and those the hub acknowledged.
  const baseItems = new Gauge({ name: 'edgetable_sync_base_items', help: "Items a table held when sync was first enabled, sent as its base read", labelNames: ['table'], registers: [registry] });
  const baseAcked = new Gauge({ name: 'edgetable_sync_base_items_acked', help: 'Items of the base read the hub acknowledged (equal to edgetable_sync_base_items once done)', labelNames: ['table'], registers: [registry] });
  return () => {
    const s = sync.status();
    conflicts.set(s.tables.filter((t) => t.conflict !== undefined).length);
    for (const t of s.tables) {
      if (t.base === undefined) continue;
      baseItems.set({ table: t.table }, t.base.total);
      baseAcked.set({ table: t.table }, t.base.acked);
    }
    setTotal(c['batches']!, s.batchesSent);
    setTotal(c['acked']!, s.recordsAcked);
    setTotal(c['wire']!, s.wireBytesSent);
    setTotal(c['rejected']!, s.rejectedAcks);
    setTotal(c['refused']!, s.refusedRecords);
    setTotal(c['storageErrors']!, s.storageErrors);
    setTotal(c['rejectedWrites']!, s.rejectedWrites);
    online.set(s.online ? 1 : 0);
  };
}
