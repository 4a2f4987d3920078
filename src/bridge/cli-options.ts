/**
 * What `edgetable bridge` and `edgetable bridge-status` need, without commander: the CLI passes
 * commander's plain options object here. Option strings are validated with messages meant for a
 * terminal (BridgeOptionError); docs/bridge.md lists the flags.
 */
import { SERVICE_CHECK_INTERVAL_MS } from '../storage/store-options.js';
import type { Durability } from '../storage/store-options.js';
import { open, type Edgetable } from '../edgetable.js';
import { readBridgeStatus, statusFilePath, type BridgeStatus } from './bridge-status.js';
import { loadNodeKeys, NodeKeysError } from './node-keys.js';
import type { SerialDriver, SerialOptions } from './serial-transport.js';
import { startBridge, type Bridge, type BridgeOptions } from './start-bridge.js';

export const DEFAULT_BRIDGE_UDP_PORT = 5780;
export const DEFAULT_BRIDGE_BAUD_RATE = 115200;
export const DEFAULT_BRIDGE_MQTT_TOPIC = 'edgetable/v1/sensors/+';

/** commander's values: strings for valued flags, booleans for switches, string[] for repeatables. */
export type BridgeCliOptions = {
  table?: string;
  /** `--udp [host:]port`; `true` when given without a value (default port, all interfaces). */
  udp?: string | boolean;
  /** `--serial <path[:baud]>`, repeatable. */
  serial?: string[];
  serialDriver?: string;
  mqtt?: string;
  mqttTopic?: string;
  ttlAttribute?: string;
  ttlSeconds?: string;
  batchMaxItems?: string;
  batchMaxDelayMs?: string;
  /** commander's `--no-create-table` gives false. */
  createTable?: boolean;
  /** `--keys <file>`: per-node MAC keys (docs/bridge.md, "Keys"). */
  keys?: string;
  allowUnauthenticated?: boolean;
  /** `--max-boot-ahead-hours <h>`: a boot id further ahead of the bridge's clock is refused. */
  maxBootAheadHours?: string;
};

export class BridgeOptionError extends Error {
  override name = 'BridgeOptionError';
}

export function parseBridgeCliOptions(raw: BridgeCliOptions): Omit<BridgeOptions, 'db'> {
  const out: Omit<BridgeOptions, 'db'> = {};
  if (raw.table !== undefined) out.table = raw.table;
  if (raw.createTable === false) out.createTable = false;
  if (raw.udp !== undefined && raw.udp !== false) out.udp = parseUdp(raw.udp === true ? String(DEFAULT_BRIDGE_UDP_PORT) : raw.udp);
  const driver = parseDriver(raw.serialDriver);
  if (raw.serial?.length) out.serial = raw.serial.map((s) => parseSerial(s, driver));
  if (raw.mqtt !== undefined) out.mqtt = { url: raw.mqtt, topic: raw.mqttTopic ?? DEFAULT_BRIDGE_MQTT_TOPIC };
  else if (raw.mqttTopic !== undefined) throw new BridgeOptionError('--mqtt-topic needs --mqtt <url>');
  if (!out.udp && !out.serial && !out.mqtt) throw new BridgeOptionError('nothing to listen on: give --udp, --serial or --mqtt');
  if ((raw.ttlAttribute === undefined) !== (raw.ttlSeconds === undefined)) throw new BridgeOptionError('--ttl-attribute and --ttl-seconds go together');
  if (raw.ttlAttribute !== undefined) {
    out.ttlAttribute = raw.ttlAttribute;
    out.ttlSeconds = int(raw.ttlSeconds!, '--ttl-seconds', 1, 100 * 365 * 86400);
  }
  if (raw.batchMaxItems !== undefined) out.batchMaxItems = int(raw.batchMaxItems, '--batch-max-items', 1, 25);
  if (raw.batchMaxDelayMs !== undefined) out.batchMaxDelayMs = int(raw.batchMaxDelayMs, '--batch-max-delay-ms', 0, 60_000);
  if (raw.keys === undefined && raw.allowUnauthenticated !== true) {
    throw new BridgeOptionError('who may write? give --keys <file> (per-node keys), --allow-unauthenticated (any frame that parses), or both');
  }
  if (raw.keys !== undefined) {
    try {
      out.keys = loadNodeKeys(raw.keys);
    } catch (e) {
      if (e instanceof NodeKeysError) throw new BridgeOptionError(e.message);
      throw e;
    }
  }
  if (raw.allowUnauthenticated === true) out.allowUnauthenticated = true;
  if (raw.maxBootAheadHours !== undefined) out.maxBootAheadSeconds = int(raw.maxBootAheadHours, '--max-boot-ahead-hours', 1, 100 * 365 * 24) * 3600;
  return out;
}

function int(text: string, flag: string, min: number, max: number): number {
  const v = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(v) || v < min || v > max) throw new BridgeOptionError(`${flag} must be an integer in ${min}..${max}, not ${JSON.stringify(text)}`);
  return v;
}

function parseUdp(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]:|([^:]+):)?(\d+)$/.exec(text);
  if (!m) throw new BridgeOptionError(`--udp takes [host:]port (e.g. 5780, 127.0.0.1:5780, [::]:5780), not ${JSON.stringify(text)}`);
  return { host: m[1] ?? m[2] ?? '0.0.0.0', port: int(m[3]!, '--udp port', 0, 65535) };
}

function parseSerial(text: string, driver: SerialDriver | undefined): SerialOptions {
  const m = /^(.+?)(?::(\d+))?$/.exec(text)!;
  const baudRate = m[2] === undefined ? DEFAULT_BRIDGE_BAUD_RATE : int(m[2], '--serial baud rate', 50, 10_000_000);
  return { path: m[1]!, baudRate, ...(driver ? { driver } : {}) };
}

function parseDriver(text: string | undefined): SerialDriver | undefined {
  if (text === undefined || text === 'serialport' || text === 'tty') return text;
  throw new BridgeOptionError(`--serial-driver is serialport or tty, not ${JSON.stringify(text)}`);
}

/**
 * `edgetable bridge --path <dir>`: opens the store, runs the bridge until SIGINT/SIGTERM (or `signal`),
 * then stops it and closes the store. Resolves when done.
 */
export type BridgeCommandIo = {
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Called once the bridge runs (the CLI starts its metrics listener); what it returns runs before the bridge stops. */
  started?: (bridge: Bridge, db: Edgetable) => Promise<() => Promise<void>>;
  /** The store's durability (storage/store-options.ts); default 'sync'. */
  durability?: Durability;
};

export async function runBridgeCommand(storePath: string, raw: BridgeCliOptions, io: BridgeCommandIo = {}): Promise<void> {
  const options = parseBridgeCliOptions(raw);
  const log = io.log ?? ((line: string) => console.log(line));
  const db = open({ path: storePath, checkIntervalMs: SERVICE_CHECK_INTERVAL_MS, ...(io.durability ? { durability: io.durability } : {}) });
  try {
    const bridge = await startBridge({ db, ...options });
    const links = [
      bridge.udpPort !== null ? `udp ${options.udp!.host}:${bridge.udpPort}` : null,
      ...(options.serial ?? []).map((s) => `serial ${s.path} @${s.baudRate}`),
      options.mqtt ? `mqtt ${options.mqtt.topic}` : null,
    ].filter((x) => x !== null);
    const auth = `${options.keys ? `${options.keys.size} node keys` : 'no node keys'}${options.allowUnauthenticated ? ', unauthenticated frames allowed' : ''}`;
    log(`bridge: ${links.join(', ')} -> table ${options.table ?? 'Readings'} (${auth}); status in ${statusFilePath(db.store.path)}`);
    const stopped = (await io.started?.(bridge, db)) ?? (async () => undefined);
    await new Promise<void>((resolve) => {
      const done = () => {
        process.off('SIGINT', done);
        process.off('SIGTERM', done);
        io.signal?.removeEventListener('abort', done);
        resolve();
      };
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
      io.signal?.addEventListener('abort', done, { once: true });
      if (io.signal?.aborted) done();
    });
    await stopped();
    await bridge.stop();
    const t = bridge.status().totals;
    log(`bridge: stopped; ${t.received} received, ${t.written} written, ${t.duplicate} duplicate, ${t.corrupt} corrupt, ${t.refused} refused`);
  } finally {
    db.close();
  }
}

/** `edgetable bridge-status --path <dir>`: the last snapshot as text (works while the bridge runs). */
export function bridgeStatusCommand(storePath: string): string {
  const s = readBridgeStatus(storePath);
  return s ? formatBridgeStatus(s) : `no bridge status in ${statusFilePath(storePath)} (has a bridge run on this store?)`;
}

export function formatBridgeStatus(s: BridgeStatus): string {
  const t = s.totals;
  const nonZero = (counts: Record<string, number>) =>
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  const kinds = nonZero(t.corruptByKind);
  const refusals = nonZero(t.refusedByKind ?? {});
  const lines = [
    `bridge pid ${s.pid} ${s.running ? 'running' : 'stopped'} since ${s.startedAt} (snapshot ${s.updatedAt}), table ${s.table}`,
    `links: ${[s.udpPort !== null ? `udp :${s.udpPort}` : null, ...s.serial.map((p) => `serial ${p}`), s.mqtt ? `mqtt ${s.mqtt.url} ${s.mqtt.topic}` : null].filter((x) => x !== null).join(', ') || 'none'}`,
    `totals: ${t.received} received, ${t.written} written, ${t.duplicate} duplicate, ${t.corrupt} corrupt${kinds ? ` (${kinds})` : ''}, ${t.refused ?? 0} refused${refusals ? ` (${refusals})` : ''}, ${t.deferred ?? 0} deferred, ${t.failed} failed, ${t.batches} batches, ${t.acksSent} acks`,
    `storage: ${t.storageErrors ?? 0} commit errors${s.storage?.lastError ? `, last ${s.storage.lastErrorAt}: ${s.storage.lastError}` : ''}${s.storage?.backoffMs ? `; retrying every ${s.storage.backoffMs} ms, ${s.storage.pendingFrames} frames pending (not acked)` : ''}`,
    'device                            received   written  duplicate  corrupt      acked  boot  last seen',
  ];
  for (const [id, d] of Object.entries(s.devices).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    lines.push(
      `${id.padEnd(32)} ${String(d.received).padStart(9)} ${String(d.written).padStart(9)} ${String(d.duplicate).padStart(10)} ${String(d.corrupt).padStart(8)} ${String(d.acked).padStart(10)} ${String(d.boot ?? 0).padStart(5)}  ${d.lastSeenAt}`,
    );
  }
  return lines.join('\n');
}
