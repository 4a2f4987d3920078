/**
 * `clearRetainedSchemas(options)`: removes devices' retained schema announcements from a broker
 * (`edgetable hub --clear-schemas`), by publishing an empty retained payload on each topic, which
 * MQTT defines as "delete the retained message". Hubs ignore empty schema payloads. A device that
 * is still alive announces its schema again on its next connect (and when a hub answers 'retry'
 * because it has no schema), so clearing never strands a live device.
 *
 * It subscribes to every schema topic, collects what the broker delivers until nothing new has
 * arrived for `settleMs` (brokers send retained messages right after the subscription), keeps
 * those of `devices` (patterns, device-access.ts; default all) announced more than `olderThanMs`
 * ago (by their `announcedAtMs`; one without it counts as old; default 0: all), clears them and
 * returns their topics. Only the schemas of `namespace` (default 'edgetable'): a broker shared by
 * deployments keeps each one's retained messages under its own root, and clearing one leaves the
 * others. On a broker with ACLs the login needs write access to the schema topics.
 */
import { MqttLink } from '../sync/mqtt-link.js';
import { SyncError } from '../sync/sync-error.js';
import type { TlsOptions } from '../sync/sync-options.js';
import { ValidationException } from '../model/errors.js';
import { Topics, isValidNamespace } from '../sync/protocol/topics.js';
import { devicePattern } from './device-access.js';

export type ClearSchemasOptions = TlsOptions & {
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly clientId?: string;
  /** Topic prefix of the deployment (topics.ts): only its schemas are cleared. Default 'edgetable'. */
  readonly namespace?: string;
  /** Device patterns whose schemas are cleared (`*` = any run of characters). Default: every device. */
  readonly devices?: readonly string[];
  /** Only announcements at least this old. Default 0: all. */
  readonly olderThanMs?: number;
  /** Quiet time that ends the collection of retained messages. Default 1000 ms. */
  readonly settleMs?: number;
  /** Give up when the broker cannot be reached within this time. Default 10 s. */
  readonly connectTimeoutMs?: number;
};

export async function clearRetainedSchemas(options: ClearSchemasOptions): Promise<string[]> {
  if (options.namespace !== undefined && !isValidNamespace(options.namespace)) {
    throw new ValidationException(`invalid namespace ${JSON.stringify(options.namespace)}: 1 to 8 levels of 1-64 [a-zA-Z0-9_.-] separated by '/'`);
  }
  const topics = new Topics(options.namespace);
  const matchers = (options.devices ?? ['*']).map(devicePattern);
  const olderThanMs = options.olderThanMs ?? 0;
  const settleMs = options.settleMs ?? 1000;
  const found = new Map<string, Buffer>();
  let lastMessageAt = Date.now();
  let error: string | undefined;
  const link = new MqttLink({
    ...options,
    clientId: options.clientId ?? `edgetable-clear-schemas-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    reconnectPeriodMs: 1000,
    subscriptions: [topics.schemaSubscription],
    onMessage: (topic, payload) => {
      lastMessageAt = Date.now();
      const t = topics.parse(topic);
      if (t.kind !== 'schema' || payload.length === 0 || !matchers.some((m) => m(t.deviceId))) return;
      found.set(topic, payload);
    },
    onState: (_online, err) => {
      if (err !== undefined) error = err;
    },
  });
  try {
    const deadline = Date.now() + (options.connectTimeoutMs ?? 10_000);
    while (!link.online) {
      if (Date.now() > deadline) throw new SyncError(`cannot reach the broker at ${options.url}: ${error ?? link.lastError ?? 'no answer'}`);
      await sleep(20);
    }
    lastMessageAt = Math.max(lastMessageAt, Date.now());
    while (Date.now() - lastMessageAt < settleMs) await sleep(Math.min(50, settleMs));
    const now = Date.now();
    const cleared: string[] = [];
    for (const [topic, payload] of found) {
      if (olderThanMs > 0 && now - announcedAt(payload) < olderThanMs) continue;
      await link.publishAcknowledged(topic, '', true);
      cleared.push(topic);
    }
    return cleared.sort();
  } finally {
    await link.close();
  }
}

function announcedAt(payload: Buffer): number {
  try {
    const at = (JSON.parse(payload.toString('utf8')) as { announcedAtMs?: unknown }).announcedAtMs;
    return typeof at === 'number' ? at : 0;
  } catch {
    return 0; // not a schema we can read: old as far as clearing goes
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
