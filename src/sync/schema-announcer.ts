/**
 * Publishes each synced table's schema, retained, and remembers the definition last announced and
 * when it last changed (table-conflicts.ts judges a conflict ack against it).
 */
import type { ReplicaTable } from '../replication/replica-types.js';
import { announceSchema, tableSchema } from './protocol/table-schema.js';
import type { Topics } from './protocol/topics.js';

/** `changedAtMs`: when the definition last changed (0: announced once, unchanged). */
export type Announced = { readonly definition: string; readonly changedAtMs: number };

/** What the hub compares: the table's announced definition and its TableId. */
export function definitionOf(table: ReplicaTable): string {
  return `${table.def.TableId} ${JSON.stringify(tableSchema(table.def))}`;
}

export class SchemaAnnouncer {
  private readonly announced = new Map<string, Announced>();

  constructor(
    private readonly deviceId: string,
    private readonly incarnation: string,
    private readonly topics: Topics,
    private readonly publish: (topic: string, payload: Uint8Array | string, retain: boolean) => boolean,
  ) {}

  /** Publishes the table's schema, retained, stamped with now and its stream (table-schema.ts). */
  announce(table: ReplicaTable): void {
    const now = Date.now();
    const definition = definitionOf(table);
    const before = this.announced.get(table.name);
    if (before?.definition !== definition) this.announced.set(table.name, { definition, changedAtMs: before ? now : 0 });
    this.publish(this.topics.schema(this.deviceId, table.name), announceSchema(table.def, this.incarnation, now), true);
  }

  lastAnnounced(table: string): Announced | undefined {
    return this.announced.get(table);
  }
}
