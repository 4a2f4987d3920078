/**
 * A device's batch (`<ns>/<device>/batch/<table>/<shard>`): checked, resolved to its hub table,
 * applied in one txn and answered on the device's ack topic (docs/sync.md).
 */
import { decodeSyncBatch, encodeLegacyRejection, encodeSyncAck, SyncVersionError, type SyncAck, type SyncBatch } from '../sync/protocol/sync-batch.js';
import { DEAD_LETTER_TABLE } from '../replication/dead-letters.js';
import { UNAUTHORIZED } from '../replication/replica-types.js';
import type { KeyValue } from '../model/attribute-value.js';
import type { ApplyResult } from '../replication/apply-batch.js';
import { conflictRuleOf, type ConflictRules } from '../replication/conflict-rule.js';
import type { HubHandlerContext } from './schema-handler.js';

export type BatchHandlerOptions = HubHandlerContext & {
  /** A device record stamped more than this ahead of the hub's wall clock is refused. */
  readonly maxDriftMs: number;
  readonly conflicts: ConflictRules | undefined;
};

export type BatchHandler = (topic: string, device: string, tableName: string, shard: number, payload: Buffer) => Promise<void>;

export function createBatchHandler(o: BatchHandlerOptions): BatchHandler {
  const { replica, topics, clockNow, admission, schemas, tables, health } = o;
  const { counters } = health;
  /**
   * Resolves once the batch is answered: its commit (store.writeAsync, off the event loop) is
   * durable before the ack is sent. The link hands over the next message only after that
   * (mqtt-link.ts), so each device's batches are applied and acknowledged in the order sent.
   */
  return async (topic, device, tableName, shard, payload) => {
    if (!admission.admits(device, topic)) return; // no ack: the device keeps its records until it is admitted
    let batch: SyncBatch;
    try {
      batch = decodeSyncBatch(payload);
    } catch (err) {
      if (err instanceof SyncVersionError && err.legacy && err.legacy.deviceId === device) {
        o.publish(topics.ack(device), encodeLegacyRejection(err.legacy.table, err.legacy.shard, err.message));
        health.reject(topic, err.message);
        return;
      }
      health.reject(topic, `malformed batch: ${(err as Error).message}`);
      return;
    }
    if (batch.deviceId !== device) {
      health.reject(topic, `batch of device ${batch.deviceId} published on the topic of device ${device}`);
      return;
    }
    if (batch.table !== tableName || batch.shard !== shard) {
      health.reject(topic, `batch for ${batch.table}/${batch.shard} published on the topic of ${tableName}/${shard}`);
      return;
    }
    const ack = (fields: Pick<SyncAck, 'seq' | 'status' | 'message' | 'hubClock' | 'rejections'>) =>
      o.publish(topics.ack(device), encodeSyncAck({ incarnation: batch.incarnation, table: tableName, tableId: batch.tableId, shard, ...fields }));
    // A table outside the device's write grants: the whole batch is refused, no hub table touched.
    const tableDenial = o.access.tableWriteDenial(device, tableName);
    if (tableDenial !== undefined) {
      try {
        const result = await replica.refuseHubBatch(batch, UNAUTHORIZED + tableDenial);
        counters.refusedBatches += 1;
        counters.duplicateRecords += result.duplicates;
        counters.deadLetteredRecords += result.deadLettered;
        counters.unauthorizedRecords += result.deadLettered;
        health.reject(topic, `refused: ${result.reason}`);
        ack({ seq: result.appliedSeq, status: 'refused', message: result.reason ?? '', hubClock: result.hubClock });
      } catch (err) {
        health.failed(`refusing ${topic}: ${(err as Error).message}`);
        ack({ seq: 0, status: 'retry', message: `the hub could not refuse the batch: ${(err as Error).message}`, hubClock: clockNow() });
      }
      return;
    }
    const authorize = (partitionKey: KeyValue) => o.access.writeDenial(device, tableName, grantKey(partitionKey));
    const hubName = tables.nameFor(device, tableName);
    const announced = schemas.get(device, tableName);
    /**
     * Resolves the hub table and applies the batch to it. Another process on the hub's folder (a
     * CLI update-table, a second hub) may change the table between this resolution and the apply
     * txn: the txn then throws CatalogChangedError having written nothing, and the whole step
     * re-runs on the reloaded catalog (ops/catalog-retry.ts), schema check included.
     */
    const resolveAndApply = async (): Promise<{ kind: 'unknown' } | { kind: 'conflict'; difference: string } | { kind: 'done'; result: ApplyResult }> => {
      // A retained schema too old to act on alone: this batch shows its device is alive.
      if (hubName !== DEAD_LETTER_TABLE && announced && !replica.table(hubName)) tables.create(hubName, announced);
      const table = hubName === DEAD_LETTER_TABLE ? undefined : replica.table(hubName);
      if (!table) return { kind: 'unknown' };
      const difference = tables.conflictOf(device, tableName, table);
      if (difference !== undefined) return { kind: 'conflict', difference };
      return { kind: 'done', result: await replica.applyHubBatch(table.name, batch, { maxDriftMs: o.maxDriftMs, conflict: conflictRuleOf(o.conflicts, tableName), authorize }) };
    };
    try {
      const outcome = await replica.retrying(resolveAndApply, () => void (counters.catalogRetries += 1));
      if (outcome.kind === 'unknown') {
        // The schema has not arrived yet: the device announces it again and sends after its ack timeout.
        ack({ seq: 0, status: 'retry', message: 'table not announced yet', hubClock: clockNow() });
        return;
      }
      if (outcome.kind === 'conflict') {
        ack({ seq: 0, status: 'conflict', message: outcome.difference, hubClock: clockNow() });
        return;
      }
      const { result } = outcome;
      counters.duplicateRecords += result.duplicates;
      counters.deadLetteredRecords += result.deadLettered;
      counters.clockRefused += result.clockRefused;
      counters.unauthorizedRecords += result.unauthorized;
      if (result.status === 'refused') {
        counters.refusedBatches += 1;
        health.reject(topic, `refused: ${result.reason}`);
        ack({ seq: result.appliedSeq, status: 'refused', message: result.reason ?? '', hubClock: result.hubClock });
        return;
      }
      counters.batchesApplied += 1;
      counters.recordsApplied += result.applied;
      counters.recordsSuperseded += result.superseded;
      counters.versionConflicts += result.versionConflicts;
      ack({ seq: result.appliedSeq, status: 'applied', message: '', hubClock: result.hubClock, rejections: result.rejections });
    } catch (err) {
      health.failed(`applying ${topic}: ${(err as Error).message}`);
      ack({ seq: 0, status: 'retry', message: `the hub could not apply the batch: ${(err as Error).message}`, hubClock: clockNow() });
    }
  };
}

/** A partition key value as the grants spell it (binary ones as base64 text, as subscriptions do). */
function grantKey(v: KeyValue): string | { readonly S: string } | { readonly N: string } {
  return 'B' in v ? Buffer.from(v.B).toString('base64') : v;
}
