/**
 * The hub's tables: the name a device's table has at the hub (by mode), their creation from an
 * announced schema, the change log every merged hub table keeps, and each device's definition
 * checked against the hub table's.
 */
import type { Edgetable } from '../edgetable.js';
import type { ReplicaTable } from '../replication/replica-types.js';
import { createTableRequest, tableSchema, type TableSchema } from '../sync/protocol/table-schema.js';
import type { AnnouncedSchemas } from './announced-schemas.js';

export type HubTablesOptions = {
  readonly db: Edgetable;
  /** 'merged': one hub table per table name; 'per-device': one per (device, table), `<table>.<device>`. */
  readonly mode: 'merged' | 'per-device';
  /** The writer id and incarnation of the hub's own writes, recorded in each hub log. */
  readonly hubId: string;
  readonly incarnation: string;
  readonly schemas: AnnouncedSchemas;
  /** A table that could not be created (reported as lastError; not counted). */
  readonly onCreateError: (message: string) => void;
};

export class HubTables {
  /** The hub tables devices announced or sent to (status().tables). */
  private readonly known = new Set<string>();
  /** TableIds whose hub log is on. */
  private readonly logged = new Set<string>();

  constructor(private readonly o: HubTablesOptions) {}

  nameFor(device: string, table: string): string {
    return this.o.mode === 'merged' ? table : `${table}.${device}`;
  }

  /** Marks an existing table as one of the hub's. */
  add(name: string): void {
    this.known.add(name);
  }

  /** Sorted. */
  names(): string[] {
    return [...this.known].sort();
  }

  /** False (lastError set) when the table could not be created. */
  create(name: string, schema: TableSchema): boolean {
    try {
      this.o.db.execute('CreateTable', { ...createTableRequest(schema), TableName: name, BillingMode: 'PAY_PER_REQUEST' });
      this.known.add(name);
      this.logAll();
      return true;
    } catch (err) {
      this.o.onCreateError(`creating ${name}: ${(err as Error).message}`);
      return false;
    }
  }

  /** Every merged hub table keeps a change log with versions (replication/hub-log.ts); tables created through the API too. */
  logAll(): void {
    const replica = this.o.db.replica;
    if (this.o.mode !== 'merged' || !replica.open) return;
    for (const table of replica.tables()) {
      if (this.logged.has(table.def.TableId)) continue;
      replica.logHubTable(table.name, { writer: this.o.hubId, incarnation: this.o.incarnation });
      this.logged.add(table.def.TableId);
    }
  }

  /** The device's definition against the hub table's; the difference when they conflict. */
  conflictOf(device: string, table: string, hubTable: ReplicaTable): string | undefined {
    return this.o.schemas.check(device, table, tableSchema(hubTable.def), Date.now());
  }
}
