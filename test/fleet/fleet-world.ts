/**
 * The fleet test's world: three tables on every device and the hub, all keyed site (S, HASH) /
 * job (S, RANGE) like the convergence test's WorkOrders (test/sync/harness/workload.ts), so its
 * oracle checks each of them:
 *   WorkOrders  two-way: every device writes and receives its sites; the hub writes them too
 *   Readings    up only: every device writes its sites, TTL enabled on `expires`; the hub never writes
 *   Late        created at the hub (CreateTable through its API) while the run goes on; devices
 *               subscribe to it (direction 'down') from the start and write nothing to it
 * Sites overlap: device i holds sites i mod S and i+1 mod S, S = max(3, ceil(N / 3)), so each site
 * is held by several devices and each device shares keys with two neighbours.
 */
import type { CreateTableInput } from '../../src/api/table-operations.js';
import { HUB_SITE, tableDefinition } from '../sync/harness/workload.js';

export const TWO_WAY_TABLE = 'WorkOrders';
export const UP_TABLE = 'Readings';
export const LATE_TABLE = 'Late';
export const TABLES = [TWO_WAY_TABLE, UP_TABLE, LATE_TABLE] as const;
export type FleetTable = (typeof TABLES)[number];
export const TTL_ATTRIBUTE = 'expires';
export { HUB_SITE };

export const definitionOf = (table: FleetTable): CreateTableInput => tableDefinition(table);

export function siteCount(devices: number): number {
  return Math.max(3, Math.ceil(devices / 3));
}

export function fleetSites(device: number, devices: number): string[] {
  const s = siteCount(devices);
  return [`site-${device % s}`, `site-${(device + 1) % s}`];
}

export function allSites(devices: number): string[] {
  return Array.from({ length: siteCount(devices) }, (_, i) => `site-${i}`);
}

/** startSync's `tables` for device `i`. */
export function syncTables(device: number, devices: number): unknown[] {
  const partitionKeys = fleetSites(device, devices);
  return [{ name: TWO_WAY_TABLE, direction: 'both', partitionKeys }, UP_TABLE, { name: LATE_TABLE, direction: 'down', partitionKeys }];
}
