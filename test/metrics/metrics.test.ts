/**
 * The process's metrics as Prometheus reads them: every name starts with edgetable_, the store's
 * figures are read when scraped, and the hub's, bridge's and sync agent's counters are their
 * status() totals.
 */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';
import { emptyTotals, type BridgeStatus } from '../../src/bridge/bridge-status.js';
import type { HubStatus } from '../../src/hub/start-hub.js';
import type { SyncStatus } from '../../src/sync/sync-options.js';
import { tableRequest, useTempDbs } from '../ops/temp-db.js';
import { parseExposition, valueOf } from './parse-exposition.js';

const temp = useTempDbs();

async function scrape(metrics: { text(): Promise<string> }) {
  return parseExposition(await metrics.text()).samples;
}

describe('createMetrics', () => {
  it('names every metric edgetable_*', async () => {
    const db = temp.open();
    const { samples, types } = parseExposition(await createMetrics({ db }).text());
    expect(samples.length).toBeGreaterThan(20);
    for (const name of types.keys()) expect(name).toMatch(/^edgetable_/);
    expect(types.get('edgetable_requests_total')).toBe('counter');
    expect(types.get('edgetable_request_duration_seconds')).toBe('histogram');
    expect(valueOf(samples, 'edgetable_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('reads items, bytes, LMDB map and commits from the store when scraped', async () => {
    const db = temp.open();
    const metrics = createMetrics({ db });
    db.createTable(tableRequest('Things', ['id', 'S']));
    let samples = await scrape(metrics);
    expect(valueOf(samples, 'edgetable_table_items', { table: 'Things' })).toBe(0);
    const commitsBefore = valueOf(samples, 'edgetable_commits_total')!;

    for (let i = 0; i < 5; i++) db.putItem({ TableName: 'Things', Item: { id: { S: `k${i}` }, body: { S: 'x'.repeat(100) } } });
    samples = await scrape(metrics);
    expect(valueOf(samples, 'edgetable_table_items', { table: 'Things' })).toBe(5);
    expect(valueOf(samples, 'edgetable_table_bytes', { table: 'Things' })).toBeGreaterThan(500);
    expect(valueOf(samples, 'edgetable_commits_total')).toBe(commitsBefore + 5);
    expect(valueOf(samples, 'edgetable_flush_duration_seconds_count', { kind: 'commit' })).toBeGreaterThanOrEqual(5);
    expect(valueOf(samples, 'edgetable_consumed_capacity_units_total', { table: 'Things', direction: 'write' })).toBe(5);
    expect(valueOf(samples, 'edgetable_lmdb_map_size_bytes')).toBeGreaterThan(0);
    const used = valueOf(samples, 'edgetable_lmdb_used_bytes')!;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(valueOf(samples, 'edgetable_lmdb_map_size_bytes')!);
    expect(valueOf(samples, 'edgetable_background_failures_total', { job: 'split' })).toBe(0);
  });

  it('counts throttled requests and consumed read units per table', async () => {
    const db = temp.open();
    const metrics = createMetrics({ db });
    db.createTable({ ...tableRequest('Slow', ['id', 'S']), BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 1, WriteCapacityUnits: 1 } });
    let throttled = 0;
    for (let i = 0; i < 400 && throttled === 0; i++) {
      try {
        db.putItem({ TableName: 'Slow', Item: { id: { S: `k${i}` } } });
      } catch (e) {
        if ((e as Error).name === 'ProvisionedThroughputExceededException') throttled++;
        else throw e;
      }
    }
    expect(throttled).toBe(1);
    db.getItem({ TableName: 'Slow', Key: { id: { S: 'k0' } }, ConsistentRead: true });
    const samples = await scrape(metrics);
    expect(valueOf(samples, 'edgetable_throttled_requests_total', { table: 'Slow' })).toBe(1);
    expect(valueOf(samples, 'edgetable_consumed_capacity_units_total', { table: 'Slow', direction: 'read' })).toBe(1);
  });

  it('reports sync lag and outbox bytes per shard of a synced table', async () => {
    const db = temp.open();
    db.createTable({ ...tableRequest('Synced', ['id', 'S']), StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } });
    for (let i = 0; i < 3; i++) db.putItem({ TableName: 'Synced', Item: { id: { S: `k${i}` } } });
    const samples = (await scrape(createMetrics({ db }))).filter((s) => s.name === 'edgetable_sync_lag_records');
    expect(samples.reduce((n, s) => n + s.value, 0)).toBe(3);
    expect(samples.every((s) => s.labels['table'] === 'Synced' && /^\d+$/.test(s.labels['shard']!))).toBe(true);
  });

  it("exports the hub's, bridge's and sync agent's totals", async () => {
    const hub: HubStatus = {
      online: true, batchesApplied: 4, recordsApplied: 40, recordsSuperseded: 2, duplicateRecords: 3, refusedBatches: 1, deadLetteredRecords: 5, clockRefused: 8, unauthorizedRecords: 9, unauthorizedSchemas: 10, versionConflicts: 6,
      applyErrors: 0, catalogRetries: 0, versionsCollected: 0, incarnation: 'i', clock: { ms: 0, counter: 0 }, rejected: [], rejectedTotal: 1, gaps: [], tables: [],
      refusedDevices: [{ deviceId: 'x', messages: 6, firstAtMs: 0, lastAtMs: 0 }], refusedDeviceMessages: 6, staleSchemas: 0,
      schemaConflicts: [{ deviceId: 'd', table: 'T', difference: 'key schema differs', sinceMs: 0 }],
      role: 'standby', standbyReason: 'another hub consumes this namespace',
      hubs: [
        { hubId: 'hub', instance: 'b', incarnation: 'i', startedAt: 2, host: 'h', pid: 2, mode: 'merged', role: 'standby', self: true },
        { hubId: 'hub', instance: 'a', incarnation: 'j', startedAt: 1, host: 'h', pid: 1, mode: 'merged', role: 'active', self: false },
      ],
    };
    const totals = { ...emptyTotals(), received: 12, written: 6, duplicate: 1, corrupt: 2, refused: 2, failed: 1, batches: 2 };
    const bridge = { status: () => ({ totals }) as BridgeStatus };
    const sync: SyncStatus = {
      deviceId: 'd', online: false, batchesSent: 7, recordsAcked: 70, wireBytesSent: 1234, rejectedAcks: 0, refusedBatches: 0, refusedRecords: 0, staleAcks: 0,
      clockRefused: 0, clockAhead: 0, storageErrors: 2, tombstonesCollected: 0, rejectedWrites: 4, lastRejections: [], incarnation: 'i', shards: [],
      tables: [{ table: 'A', state: 'log' }, { table: 'B', state: 'log', conflict: 'key schema differs' }],
    };
    const samples = await scrape(createMetrics({ hub: { status: () => hub }, bridge, sync: { status: () => sync } }));
    expect(valueOf(samples, 'edgetable_hub_records_applied_total')).toBe(40);
    expect(valueOf(samples, 'edgetable_hub_records_duplicate_total')).toBe(3);
    expect(valueOf(samples, 'edgetable_hub_batches_rejected_total')).toBe(1);
    expect(valueOf(samples, 'edgetable_hub_records_dead_lettered_total')).toBe(5);
    expect(valueOf(samples, 'edgetable_hub_broker_connected')).toBe(1);
    expect(valueOf(samples, 'edgetable_bridge_frames_received_total')).toBe(12);
    expect(valueOf(samples, 'edgetable_bridge_frames_dropped_total', { reason: 'refused' })).toBe(2);
    expect(valueOf(samples, 'edgetable_bridge_frames_written_total')).toBe(6);
    expect(valueOf(samples, 'edgetable_bridge_frames_dropped_total', { reason: 'corrupt' })).toBe(2);
    expect(valueOf(samples, 'edgetable_bridge_frames_dropped_total', { reason: 'failed' })).toBe(1);
    expect(valueOf(samples, 'edgetable_sync_records_acked_total')).toBe(70);
    expect(valueOf(samples, 'edgetable_sync_broker_connected')).toBe(0);
    expect(valueOf(samples, 'edgetable_sync_storage_errors_total')).toBe(2);
    expect(valueOf(samples, 'edgetable_hub_version_conflicts_total')).toBe(6);
    expect(valueOf(samples, 'edgetable_sync_writes_rejected_total')).toBe(4);
    expect(valueOf(samples, 'edgetable_hub_refused_device_messages_total')).toBe(6);
    expect(valueOf(samples, 'edgetable_hub_records_clock_refused_total')).toBe(8);
    expect(valueOf(samples, 'edgetable_hub_unauthorized_records_total')).toBe(9);
    expect(valueOf(samples, 'edgetable_hub_unauthorized_schemas_total')).toBe(10);
    expect(valueOf(samples, 'edgetable_hub_schema_conflicts')).toBe(1);
    expect(valueOf(samples, 'edgetable_hub_standby')).toBe(1);
    expect(valueOf(samples, 'edgetable_hub_hubs_seen')).toBe(2);
    expect(valueOf(samples, 'edgetable_sync_tables_in_conflict')).toBe(1);
    expect(valueOf(samples, 'edgetable_table_items')).toBeUndefined();
  });
});
