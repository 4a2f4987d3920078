/**
 * `schemaDifference(hub, device)`: why a device's table cannot sync into the hub's table of the
 * same name, in words, or undefined when it can. Both sides are table schemas as announced
 * (table-schema.ts). They conflict when the key schema differs (attribute names, key types, or the
 * key attributes' types) or when the secondary indexes differ (a name on one side only, or the
 * same name with another key schema or projection). Other attributes are schemaless and never
 * conflict. The order of NonKeyAttributes does not matter.
 */
import type { TableSchema } from './table-schema.js';

type KeyElement = { readonly AttributeName: string; readonly KeyType: string };
type IndexShape = { readonly IndexName: string; readonly KeySchema: unknown; readonly Projection: unknown };

export function schemaDifference(hub: TableSchema, device: TableSchema): string | undefined {
  const hubKey = describeKey(hub, hub.KeySchema);
  const deviceKey = describeKey(device, device.KeySchema);
  if (hubKey !== deviceKey) return `key schema differs: the hub's ${hub.TableName} has ${hubKey}, this device's has ${deviceKey}`;
  const differences: string[] = [];
  for (const kind of ['LocalSecondaryIndexes', 'GlobalSecondaryIndexes'] as const) {
    const label = kind === 'LocalSecondaryIndexes' ? 'local index' : 'global index';
    const hubIx = new Map((hub[kind] ?? []).map((ix) => [ix.IndexName, describeIndex(hub, ix)]));
    const devIx = new Map((device[kind] ?? []).map((ix) => [ix.IndexName, describeIndex(device, ix)]));
    for (const [name, shape] of hubIx) {
      const mine = devIx.get(name);
      if (mine === undefined) differences.push(`${label} ${name} only at the hub (${shape})`);
      else if (mine !== shape) differences.push(`${label} ${name} differs: the hub's has ${shape}, this device's has ${mine}`);
    }
    for (const [name, shape] of devIx) if (!hubIx.has(name)) differences.push(`${label} ${name} only on this device (${shape})`);
  }
  return differences.length === 0 ? undefined : `index definitions differ: ${differences.join('; ')}`;
}

/** `sensor (S, HASH), ts (N, RANGE)` */
function describeKey(schema: TableSchema, key: unknown): string {
  const types = new Map((schema.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  return (key as readonly KeyElement[]).map((k) => `${k.AttributeName} (${types.get(k.AttributeName) ?? '?'}, ${k.KeyType})`).join(', ');
}

function describeIndex(schema: TableSchema, ix: IndexShape): string {
  const p = ix.Projection as { ProjectionType?: string; NonKeyAttributes?: readonly string[] } | undefined;
  const extra = p?.NonKeyAttributes && p.NonKeyAttributes.length > 0 ? ` ${[...p.NonKeyAttributes].sort().join(',')}` : '';
  return `key ${describeKey(schema, ix.KeySchema)}, projection ${p?.ProjectionType ?? 'ALL'}${extra}`;
}
