/**
 * What a hub knows of its devices' table schemas (docs/sync.md, "Securing a shared broker"):
 * the last schema each (device, table) announced, whether a retained one is fresh enough to create
 * a hub table from, and which devices' definitions conflict with the hub's table. In memory: the
 * broker's retained schemas and each device's announcement on connect bring it back after a
 * restart.
 *
 * Freshness: a retained schema can outlive its device by years. A hub creates a table from an
 * announcement only while it is at most `maxAgeMs` old by its `announcedAtMs` (and not more than
 * `maxDriftMs` in the future); an older one, or one without the field, waits until the device
 * sends a batch of that table, which proves the device is alive.
 */
import { schemaDifference } from '../sync/protocol/schema-difference.js';
import type { TableSchema } from '../sync/protocol/table-schema.js';

export type SchemaConflict = { readonly deviceId: string; readonly table: string; readonly difference: string; readonly sinceMs: number };

export const DEFAULT_SCHEMA_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export class AnnouncedSchemas {
  private readonly schemas = new Map<string, TableSchema>();
  private readonly conflicting = new Map<string, SchemaConflict>();

  constructor(
    private readonly maxAgeMs: number,
    private readonly maxDriftMs: number,
  ) {}

  remember(deviceId: string, table: string, schema: TableSchema): void {
    this.schemas.set(key(deviceId, table), schema);
  }

  get(deviceId: string, table: string): TableSchema | undefined {
    return this.schemas.get(key(deviceId, table));
  }

  isFresh(schema: TableSchema, nowMs: number): boolean {
    const at = schema.announcedAtMs;
    return typeof at === 'number' && at >= nowMs - this.maxAgeMs && at <= nowMs + this.maxDriftMs;
  }

  /**
   * Compares the device's last announcement with the hub table's schema and records the outcome;
   * returns the difference when they conflict. Without an announcement (or with one from a device
   * before conflict reporting) there is nothing to compare.
   */
  check(deviceId: string, table: string, hub: TableSchema, nowMs: number): string | undefined {
    const k = key(deviceId, table);
    const announced = this.schemas.get(k);
    // A device from before conflict reporting (no announcedAtMs) could not decode a 'conflict'
    // ack: its batches meet the hub's table as they used to (refused, dead-lettered).
    const difference = announced?.announcedAtMs === undefined ? undefined : schemaDifference(hub, announced);
    if (difference === undefined) {
      this.conflicting.delete(k);
      return undefined;
    }
    const known = this.conflicting.get(k);
    if (known?.difference !== difference) this.conflicting.set(k, { deviceId, table, difference, sinceMs: known?.sinceMs ?? nowMs });
    return difference;
  }

  conflicts(): SchemaConflict[] {
    return [...this.conflicting.values()].sort((a, b) => (a.deviceId === b.deviceId ? a.table.localeCompare(b.table) : a.deviceId.localeCompare(b.deviceId)));
  }
}

function key(deviceId: string, table: string): string {
  return `${deviceId}\u0000${table}`;
}
