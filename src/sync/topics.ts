/**
 * MQTT topics of sync, version 1 (docs/sync.md):
 *
 *   edgetable/v1/<deviceId>/<table>/<shard>    device -> hub   sync batch (QoS 1)
 *   edgetable/v1/<deviceId>/<table>/schema     device -> hub   table schema, JSON, retained
 *   edgetable/v1/<deviceId>/ack                hub -> device   ack (QoS 1)
 *
 * Device ids follow table-name rules ([a-zA-Z0-9_.-], 1-128 characters), so no topic level can
 * contain '/', '+' or '#'. A hub subscribes to every batch with one shared subscription.
 */
export const TOPIC_ROOT = 'edgetable/v1';
export const SCHEMA_LEVEL = 'schema';
const DEVICE_ID = /^[a-zA-Z0-9_.-]{1,128}$/;

export function isValidDeviceId(id: string): boolean {
  return DEVICE_ID.test(id);
}

export function batchTopic(deviceId: string, table: string, shard: number): string {
  return `${TOPIC_ROOT}/${deviceId}/${table}/${shard}`;
}

export function schemaTopic(deviceId: string, table: string): string {
  return `${TOPIC_ROOT}/${deviceId}/${table}/${SCHEMA_LEVEL}`;
}

export function ackTopic(deviceId: string): string {
  return `${TOPIC_ROOT}/${deviceId}/ack`;
}

/** Batches and schemas of every device, shared among the hubs of `group`. */
export function hubSubscription(group: string): string {
  return `$share/${group}/${TOPIC_ROOT}/+/+/+`;
}

/** Schemas of every device (not shared: brokers do not deliver retained messages to shared subscriptions). */
export const SCHEMA_SUBSCRIPTION = `${TOPIC_ROOT}/+/+/${SCHEMA_LEVEL}`;

export type ParsedTopic =
  | { kind: 'batch'; deviceId: string; table: string; shard: number }
  | { kind: 'schema'; deviceId: string; table: string }
  | { kind: 'other' };

export function parseTopic(topic: string): ParsedTopic {
  const parts = topic.split('/');
  if (parts.length !== 5 || `${parts[0]}/${parts[1]}` !== TOPIC_ROOT) return { kind: 'other' };
  const [, , deviceId, table, last] = parts as [string, string, string, string, string];
  if (last === SCHEMA_LEVEL) return { kind: 'schema', deviceId, table };
  if (!/^\d{1,10}$/.test(last)) return { kind: 'other' };
  return { kind: 'batch', deviceId, table, shard: Number(last) };
}
