/**
 * A device's retained schema announcement (`<ns>/<device>/schema/<table>`): remembered, and its
 * hub table created while the announcement is fresh (announced-schemas.ts). A schema that
 * conflicts with the existing hub table's is answered 'conflict' at once when it names its stream.
 */
import { encodeSyncAck } from '../sync/protocol/sync-batch.js';
import type { Hlc } from '../replication/replica-types.js';
import type { Topics } from '../sync/protocol/topics.js';
import type { Edgetable } from '../edgetable.js';
import type { TableSchema } from '../sync/protocol/table-schema.js';
import type { AnnouncedSchemas } from './announced-schemas.js';
import type { DeviceAccess } from './device-access.js';
import type { DeviceAdmission } from './device-admission.js';
import type { HubHealth } from './hub-health.js';
import type { HubTables } from './hub-tables.js';

/** What the hub's message handlers (schemas here, batches in batch-handler.ts) share. */
export type HubHandlerContext = {
  readonly replica: Edgetable['replica'];
  readonly topics: Topics;
  readonly publish: (topic: string, payload: Uint8Array) => void;
  readonly clockNow: () => Hlc;
  readonly admission: DeviceAdmission;
  /** The write grants (device-access.ts): which tables a device may announce and write. */
  readonly access: Pick<DeviceAccess, 'tableWriteDenial' | 'writeDenial'>;
  readonly schemas: AnnouncedSchemas;
  readonly tables: HubTables;
  readonly health: HubHealth;
};

export type SchemaHandlerOptions = HubHandlerContext;

export function createSchemaHandler(o: SchemaHandlerOptions): (device: string, table: string, payload: Buffer) => void {
  const { replica, topics, admission, schemas, tables, health } = o;
  return (device, table, payload) => {
    if (payload.length === 0) return; // a cleared retained message
    const topic = topics.schema(device, table);
    if (!admission.admits(device, topic)) return;
    // Announcing creates a table: only a device whose write grants name the table may.
    const denial = o.access.tableWriteDenial(device, table);
    if (denial !== undefined) {
      health.counters.unauthorizedSchemas += 1;
      health.reject(topic, `unauthorized schema: ${denial}`);
      return;
    }
    let schema: TableSchema;
    try {
      schema = JSON.parse(payload.toString('utf8')) as TableSchema;
      if (schema.TableName !== table) throw new Error(`schema names table ${schema.TableName}`);
    } catch (err) {
      health.reject(topic, `malformed schema: ${(err as Error).message}`);
      return;
    }
    schemas.remember(device, table, schema);
    const name = tables.nameFor(device, table);
    const existing = replica.table(name);
    if (existing) {
      tables.add(name);
      const difference = tables.conflictOf(device, table, existing);
      // Told at once when the announcement names its stream; otherwise at its next batch.
      if (difference !== undefined && typeof schema.incarnation === 'string' && typeof schema.TableId === 'string') {
        o.publish(topics.ack(device), encodeSyncAck({ incarnation: schema.incarnation, table, tableId: schema.TableId, shard: 0, seq: 0, status: 'conflict', message: difference, hubClock: o.clockNow() }));
      }
      return;
    }
    if (!schemas.isFresh(schema, Date.now())) {
      health.counters.staleSchemas += 1; // created when the device sends a batch of it, if it ever does
      return;
    }
    tables.create(name, schema);
  };
}
