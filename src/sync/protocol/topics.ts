/**
 * MQTT topics of sync, version 1 (docs/sync-protocol.md). The only place topics are built or parsed.
 * `<root>` is `<namespace>/v1`; the namespace (default `edgetable`) lets deployments share a broker.
 *
 *   <root>/<deviceId>/<table>/<shard>    device -> hub   sync batch (QoS 1)
 *   <root>/<deviceId>/<table>/schema     device -> hub   table schema, JSON, retained
 *   <root>/<deviceId>/ack                hub -> device   ack (QoS 1)
 *   <root>/<deviceId>/down               hub -> device   down message: schema, changes, base (QoS 1)
 *   <root>/<deviceId>/down/sub           device -> hub   down subscriptions (QoS 1)
 *   <root>/<deviceId>/down/ack           device -> hub   down acks (QoS 1)
 *   <root>/$hubs/<instance>              hub -> hubs     hub presence, JSON, retained (hub/hub-presence.ts)
 *
 * Device ids follow table-name rules ([a-zA-Z0-9_.-], 1-128 characters), so no topic level can
 * contain '/', '+' or '#'. A hub subscribes to every batch with one shared subscription. The
 * hub -> device down topic has one level fewer than a batch, so a hub's batch filter never
 * receives what the hub itself publishes down. `$hubs` is no device id ('$' is outside their
 * characters), so presence never parses as a device's topic, and has two levels, so no hub's
 * batch filter receives it.
 */
export const DEFAULT_NAMESPACE = 'edgetable';
export const SCHEMA_LEVEL = 'schema';
export const DOWN_LEVEL = 'down';
export const PRESENCE_LEVEL = '$hubs';
const DEVICE_ID = /^[a-zA-Z0-9_.-]{1,128}$/;
const NAMESPACE = /^[a-zA-Z0-9_.-]{1,64}(\/[a-zA-Z0-9_.-]{1,64}){0,7}$/;

export function isValidDeviceId(id: string): boolean {
  return DEVICE_ID.test(id);
}

/** 1 to 8 levels of 1-64 [a-zA-Z0-9_.-], separated by '/'. */
export function isValidNamespace(namespace: string): boolean {
  return NAMESPACE.test(namespace);
}

export type ParsedTopic =
  | { kind: 'batch'; deviceId: string; table: string; shard: number }
  | { kind: 'schema'; deviceId: string; table: string }
  | { kind: 'down-subscribe'; deviceId: string }
  | { kind: 'down-ack'; deviceId: string }
  | { kind: 'down'; deviceId: string }
  | { kind: 'presence'; instance: string }
  | { kind: 'other' };

export class Topics {
  readonly root: string;

  constructor(readonly namespace: string = DEFAULT_NAMESPACE) {
    this.root = `${namespace}/v1`;
  }

  batch(deviceId: string, table: string, shard: number): string {
    return `${this.root}/${deviceId}/${table}/${shard}`;
  }

  schema(deviceId: string, table: string): string {
    return `${this.root}/${deviceId}/${table}/${SCHEMA_LEVEL}`;
  }

  ack(deviceId: string): string {
    return `${this.root}/${deviceId}/ack`;
  }

  down(deviceId: string): string {
    return `${this.root}/${deviceId}/${DOWN_LEVEL}`;
  }

  downSubscribe(deviceId: string): string {
    return `${this.root}/${deviceId}/${DOWN_LEVEL}/sub`;
  }

  downAck(deviceId: string): string {
    return `${this.root}/${deviceId}/${DOWN_LEVEL}/ack`;
  }

  /** The presence record of one hub instance (hub/hub-presence.ts). */
  presence(instance: string): string {
    return `${this.root}/${PRESENCE_LEVEL}/${instance}`;
  }

  /** Every hub's presence record. */
  get presenceSubscription(): string {
    return `${this.root}/${PRESENCE_LEVEL}/+`;
  }

  /** Batches, schemas and down control messages of every device, shared among the hubs of `group`. */
  sharedHubSubscription(group: string): string {
    return `$share/${group}/${this.root}/+/+/+`;
  }

  /** The same, unshared (brokers without $share, e.g. aedes). */
  get hubSubscription(): string {
    return `${this.root}/+/+/+`;
  }

  /** Schemas of every device (not shared: brokers do not deliver retained messages to shared subscriptions). */
  get schemaSubscription(): string {
    return `${this.root}/+/+/${SCHEMA_LEVEL}`;
  }

  /** Down subscriptions and acks of every device, unshared: a device's down state lives in one hub. */
  get downControlSubscription(): string {
    return `${this.root}/+/${DOWN_LEVEL}/+`;
  }

  parse(topic: string): ParsedTopic {
    if (!topic.startsWith(`${this.root}/`)) return { kind: 'other' };
    const parts = topic.slice(this.root.length + 1).split('/');
    if (parts.length === 2 && parts[0] === PRESENCE_LEVEL) return { kind: 'presence', instance: parts[1]! };
    if (parts.length === 2 && parts[1] === DOWN_LEVEL) return { kind: 'down', deviceId: parts[0]! };
    if (parts.length !== 3) return { kind: 'other' };
    const [deviceId, table, last] = parts as [string, string, string];
    if (table === DOWN_LEVEL && last === 'sub') return { kind: 'down-subscribe', deviceId };
    if (table === DOWN_LEVEL && last === 'ack') return { kind: 'down-ack', deviceId };
    if (last === SCHEMA_LEVEL) return { kind: 'schema', deviceId, table };
    if (!/^\d{1,10}$/.test(last)) return { kind: 'other' };
    return { kind: 'batch', deviceId, table, shard: Number(last) };
  }
}

const DEFAULT_TOPICS = new Topics();

/** The default namespace's root, `edgetable/v1`. */
export const TOPIC_ROOT = DEFAULT_TOPICS.root;

export function batchTopic(deviceId: string, table: string, shard: number): string {
  return DEFAULT_TOPICS.batch(deviceId, table, shard);
}

export function schemaTopic(deviceId: string, table: string): string {
  return DEFAULT_TOPICS.schema(deviceId, table);
}

export function ackTopic(deviceId: string): string {
  return DEFAULT_TOPICS.ack(deviceId);
}

export function hubSubscription(group: string): string {
  return DEFAULT_TOPICS.sharedHubSubscription(group);
}

export const SCHEMA_SUBSCRIPTION = DEFAULT_TOPICS.schemaSubscription;

export function parseTopic(topic: string): ParsedTopic {
  return DEFAULT_TOPICS.parse(topic);
}
