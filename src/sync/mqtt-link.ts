/**
 * The MQTT connection of a sync agent or a hub: the only place that imports mqtt (DESIGN.md), so
 * the hub reuses it. MQTT 3.1.1 (every broker has it; Mosquitto offers shared subscriptions on it),
 * QoS 1, automatic reconnects. Publishing while offline is refused (returns false) rather than
 * queued: the callers keep their own durable state and resend after reconnecting.
 *
 * Incoming messages are handled one at a time, in the order the broker sent them: when onMessage
 * returns a promise (a handler that commits off the event loop, store.writeAsync), the next
 * message is not handed over, and this message's QoS 1 PUBACK not sent, until it settles (MQTT.js's
 * handleMessage hook). The broker then holds what follows (its in-flight window, then TCP), so a
 * slow disk bounds the memory of the queue instead of growing it.
 */
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import type { TlsOptions } from './sync-options.js';

/** How long close() waits for bytes already written to the socket to leave. */
const CLOSE_FLUSH_MS = 1000;

export type LinkOptions = TlsOptions & {
  readonly url: string;
  readonly clientId: string;
  readonly username?: string;
  readonly password?: string;
  readonly reconnectPeriodMs: number;
  /** Topic filters (re)subscribed at QoS 1 on every connect (setSubscriptions() replaces them). */
  readonly subscriptions: readonly string[];
  /** Published by the broker when the connection ends without a disconnect (a crash, a SIGKILL). */
  readonly will?: { readonly topic: string; readonly payload: string; readonly retain: boolean };
  /** Never throws; a returned promise holds the next message until it settles (see the header). */
  readonly onMessage: (topic: string, payload: Buffer, retained: boolean) => void | Promise<void>;
  /** Called on every (re)connect and disconnect. */
  readonly onState: (online: boolean, error?: string) => void;
};

export class MqttLink {
  private readonly client: MqttClient;
  private subscriptions: readonly string[];
  online = false;
  lastError: string | undefined;

  constructor(options: LinkOptions) {
    this.subscriptions = options.subscriptions;
    const clientOptions: IClientOptions = {
      clientId: options.clientId,
      protocolVersion: 4,
      clean: true,
      reconnectPeriod: options.reconnectPeriodMs,
      connectTimeout: 10_000,
      keepalive: 30,
      resubscribe: false,
      ...(options.username !== undefined ? { username: options.username } : {}),
      ...(options.password !== undefined ? { password: options.password } : {}),
      ...(options.will !== undefined ? { will: { topic: options.will.topic, payload: Buffer.from(options.will.payload), qos: 1 as const, retain: options.will.retain } } : {}),
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.cert !== undefined ? { cert: options.cert } : {}),
      ...(options.key !== undefined ? { key: options.key } : {}),
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
    };
    this.client = connect(options.url, clientOptions);
    this.client.on('connect', () => {
      if (this.subscriptions.length === 0) {
        this.online = true;
        options.onState(true);
        return;
      }
      this.client.subscribe([...this.subscriptions], { qos: 1 }, (err) => {
        if (err) {
          this.lastError = `subscribe failed: ${err.message}`;
          options.onState(false, this.lastError);
          return;
        }
        this.online = true;
        options.onState(true);
      });
    });
    const down = () => {
      if (!this.online) return;
      this.online = false;
      options.onState(false, this.lastError);
    };
    this.client.on('close', down);
    this.client.on('offline', down);
    this.client.on('error', (err) => {
      this.lastError = err.message;
    });
    this.client.handleMessage = (packet, done) => {
      const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
      let handled: void | Promise<void>;
      try {
        handled = options.onMessage(String(packet.topic), payload, packet.retain === true);
      } catch {
        handled = undefined; // onMessage must not throw; if it does, the message is dropped, not the link
      }
      if (handled === undefined) done();
      else handled.then(() => done(), () => done());
    };
  }

  /**
   * Replaces the subscriptions: filters no longer listed are unsubscribed, new ones subscribed, and
   * those in `renew` subscribed again, which makes the broker send their retained messages again.
   * Offline, the new list takes effect at the next connect. Failures land in lastError.
   */
  setSubscriptions(filters: readonly string[], renew: readonly string[] = []): void {
    const before = new Set(this.subscriptions);
    this.subscriptions = [...filters];
    if (!this.client.connected) return;
    const removed = [...before].filter((f) => !filters.includes(f));
    const added = filters.filter((f) => !before.has(f) || renew.includes(f));
    const failed = (what: string) => (err?: Error | null) => {
      if (err) this.lastError = `${what} failed: ${err.message}`;
    };
    if (removed.length > 0) this.client.unsubscribe(removed, failed('unsubscribe'));
    if (added.length > 0) this.client.subscribe(added, { qos: 1 }, failed('subscribe'));
  }

  /** QoS 1 publish; false when offline (nothing queued). Failures land in lastError. */
  publish(topic: string, payload: Uint8Array | string, retain = false): boolean {
    if (!this.online || !this.client.connected) return false;
    this.client.publish(topic, Buffer.isBuffer(payload) || typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength), { qos: 1, retain }, (err) => {
      if (err) this.lastError = `publish failed: ${err.message}`;
    });
    return true;
  }

  /** QoS 1 publish that resolves once the broker acknowledged it (rejects when offline or refused). */
  publishAcknowledged(topic: string, payload: string | Buffer, retain = false): Promise<void> {
    if (!this.online || !this.client.connected) return Promise.reject(new Error('not connected to the broker'));
    return new Promise((resolve, reject) => this.client.publish(topic, payload, { qos: 1, retain }, (err) => (err ? reject(err) : resolve())));
  }

  /**
   * Disconnects; in-flight QoS 1 publishes are abandoned (callers resend from durable state), but
   * what was already handed to the socket is flushed first (at most CLOSE_FLUSH_MS): an ack
   * published just before close() (after an asynchronous commit, say) still leaves.
   */
  async close(): Promise<void> {
    this.online = false;
    await this.flushSocket();
    await new Promise<void>((resolve) => this.client.end(true, {}, () => resolve()));
  }

  private flushSocket(): Promise<void> {
    const stream = this.client.stream as { writableLength?: number; destroyed?: boolean; write?: (chunk: Uint8Array, cb: () => void) => boolean } | undefined;
    if (!this.client.connected || !stream?.write || stream.destroyed || !stream.writableLength) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, CLOSE_FLUSH_MS);
      // Writes complete in order: this empty one's callback runs once everything before it left.
      stream.write!(new Uint8Array(0), () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
