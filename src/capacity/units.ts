/**
 * DynamoDB's capacity-unit arithmetic (spec §5.1-§5.3): reads in 4 KB units (half for eventually
 * consistent reads), writes in 1 KB units, always rounded up, with a minimum of one unit.
 */
import { READ_UNIT_BYTES, WRITE_UNIT_BYTES } from '../model/limits.js';

/** Read units for `bytes` read in one rounding (one item, or a whole Query/Scan page). */
export function readUnits(bytes: number, consistent: boolean): number {
  const units = Math.max(1, Math.ceil(bytes / READ_UNIT_BYTES));
  return consistent ? units : units / 2;
}

/** Write units for one item write sized on max(old, new). */
export function writeUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));
}
