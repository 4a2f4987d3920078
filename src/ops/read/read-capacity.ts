/** ConsumedCapacity of one Query or Scan page: entries rounded once, fetched base items each. */
import { readUnits } from '../../capacity/units.js';
import { consumedCapacityWithIndexes, type ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import type { ReadTarget } from './read-target.js';

export function readPageCapacity(mode: ReturnConsumedCapacity, tableName: string, target: ReadTarget, bytes: number, consistent: boolean, fetchUnits: number) {
  if (mode === 'NONE') return undefined; // the common request: no arms to build
  const units = readUnits(bytes, consistent);
  if (target.local) return consumedCapacityWithIndexes(mode, tableName, fetchUnits, { local: { [target.local.IndexName]: units } });
  if (target.global) return consumedCapacityWithIndexes(mode, tableName, 0, { global: { [target.global.def.IndexName]: units } });
  return consumedCapacityWithIndexes(mode, tableName, units, {});
}
