/**
 * startBridge: sensor nodes -> readings table. Opens the links (UDP, serial ports, MQTT), feeds
 * every frame to one Ingest, and keeps a status snapshot next to the store. docs/bridge.md is the
 * user's page; docs/sensor-frame.md the bytes.
 *
 * Acks mean "on disk" when the store was opened with durability 'sync' (the default): the ack is
 * sent after the write group holding its BatchWriteItem committed, i.e. after that commit's fsync.
 */
import type { SensorFrame } from '../codec/sensor-frame.js';
import type { Edgetable } from '../edgetable.js';
import type { WireItem } from '../model/attribute-value.js';
import { BRIDGE_STATUS_INTERVAL_MS, MAX_BATCH_WRITE_REQUESTS } from '../model/limits.js';
import { StatusFileWriter, statusFilePath, type BridgeStatus } from './bridge-status.js';
import { Ingest } from './ingest.js';
import type { NodeKeys } from './node-keys.js';
import { openMqttTransport, type MqttOptions, type MqttTransport } from './mqtt-transport.js';
import { defaultMapFrame, ensureReadingsTable, keyAttributeNames } from './reading-item.js';
import { attachSerial } from './serial-link.js';
import type { SerialOptions, SerialTransport } from './serial-transport.js';
import { createSerialPortTransport } from './serialport-transport.js';
import { BRIDGE_STATE_TABLE, ensureStateTable, tableExists } from './state-table.js';
import { createTtyTransport } from './tty-transport.js';
import { openUdpTransport, type UdpOptions, type UdpTransport } from './udp-transport.js';

export type BridgeOptions = {
  db: Edgetable;
  /** Readings table. Default 'Readings'. */
  table?: string;
  /** Create the readings table (deviceId S / ts N, on demand) if absent. Default true. */
  createTable?: boolean;
  udp?: UdpOptions;
  serial?: SerialOptions[];
  mqtt?: MqttOptions;
  /** With ttlSeconds: each reading gets this attribute = floor(ts / 1000) + ttlSeconds. */
  ttlAttribute?: string;
  ttlSeconds?: number;
  /** Readings per BatchWriteItem (1..24: one request per batch's device goes to its dedup state). Default 25, capped by the 25-request limit. */
  batchMaxItems?: number;
  /** Longest wait for a batch to fill before it is committed. 0 = commit when the event loop is idle. Default 20. */
  batchMaxDelayMs?: number;
  /** Full batches committed together in one write group (one fsync) when frames queue up. Default 16; 1 = one commit per batch. */
  groupMaxBatches?: number;
  /** Custom frame -> item mapping; its key must be unique per (deviceId, seq). */
  mapFrame?: (frame: SensorFrame) => WireItem;
  /** Where the dedup state lives. Default '_bridge'. */
  stateTable?: string;
  /** Status snapshot file. Default `<store path>/bridge-status.json`; null = none. */
  statusFile?: string | null;
  /** Replaces the driver named in serial[].driver (tests, custom hardware). */
  openSerial?: (options: SerialOptions) => SerialTransport;
  /** Per-node MAC keys (loadNodeKeys). A device with a key must sign every frame. */
  keys?: NodeKeys;
  /** Take frames of devices without a key (no MAC checked). Default false: such frames are refused. */
  allowUnauthenticated?: boolean;
  /** A boot id further ahead of the bridge's clock than this, read as seconds, is refused (futureBoot). Default 86,400 (a day). */
  maxBootAheadSeconds?: number;
};

export type Bridge = {
  /** The bound UDP port (null without UDP). */
  readonly udpPort: number | null;
  status(): BridgeStatus;
  /** Commits and acks what is pending, closes the links, writes the last snapshot. Leaves db open. */
  stop(): Promise<void>;
};

export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const { db } = options;
  const table = options.table ?? 'Readings';
  const stateTable = options.stateTable ?? BRIDGE_STATE_TABLE;
  if (table === stateTable) throw new Error(`bridge: the readings table cannot be the state table (${stateTable})`);
  const batchMaxItems = Math.min(options.batchMaxItems ?? MAX_BATCH_WRITE_REQUESTS, MAX_BATCH_WRITE_REQUESTS - 1);
  const batchMaxDelayMs = options.batchMaxDelayMs ?? 20;
  if (!Number.isInteger(batchMaxItems) || batchMaxItems < 1) throw new RangeError('bridge: batchMaxItems must be an integer >= 1');
  if (!Number.isFinite(batchMaxDelayMs) || batchMaxDelayMs < 0) throw new RangeError('bridge: batchMaxDelayMs must be >= 0');
  if ((options.ttlAttribute === undefined) !== (options.ttlSeconds === undefined)) throw new Error('bridge: ttlAttribute and ttlSeconds go together');
  if (options.ttlSeconds !== undefined && !Number.isSafeInteger(options.ttlSeconds)) throw new RangeError('bridge: ttlSeconds must be an integer');

  if (options.createTable ?? true) ensureReadingsTable(db, table);
  else if (!tableExists(db, table)) throw new Error(`bridge: table ${table} does not exist (createTable is false)`);
  ensureStateTable(db, stateTable);

  const startedAt = new Date().toISOString();
  let running = true;
  let udp: UdpTransport | null = null;
  const serials: SerialTransport[] = [];
  let mqtt: MqttTransport | null = null;
  let writer: StatusFileWriter | null = null;

  const ingest = new Ingest({
    db,
    table,
    stateTable,
    mapFrame: options.mapFrame ?? defaultMapFrame({ ttlAttribute: options.ttlAttribute, ttlSeconds: options.ttlSeconds }),
    keyNames: keyAttributeNames(db, table),
    batchMaxItems,
    batchMaxDelayMs,
    ...(options.groupMaxBatches !== undefined ? { groupMaxBatches: options.groupMaxBatches } : {}),
    now: Date.now,
    onChange: () => writer?.markDirty(),
    ...(options.keys ? { keys: options.keys } : {}),
    allowUnauthenticated: options.allowUnauthenticated ?? false,
    ...(options.maxBootAheadSeconds !== undefined ? { maxBootAheadSeconds: options.maxBootAheadSeconds } : {}),
  });

  const status = (): BridgeStatus => ({
    format: 1,
    pid: process.pid,
    startedAt,
    updatedAt: new Date().toISOString(),
    running,
    table,
    udpPort: udp?.port ?? null,
    serial: (options.serial ?? []).map((s) => s.path),
    mqtt: options.mqtt ? { url: redactUrl(options.mqtt.url), topic: options.mqtt.topic } : null,
    totals: structuredClone(ingest.totals),
    storage: ingest.storageStatus(),
    devices: Object.fromEntries([...ingest.devices].map(([id, d]) => [id, { ...d.status }])),
  });

  const closeLinks = async () => {
    await Promise.allSettled([udp?.close(), mqtt?.close(), ...serials.map((s) => s.close())]);
  };

  try {
    const onFrame = (bytes: Uint8Array, source: Parameters<Ingest['accept']>[1]) => ingest.accept(bytes, source);
    if (options.udp) udp = await openUdpTransport(options.udp, onFrame);
    for (const s of options.serial ?? []) {
      const transport = options.openSerial ? options.openSerial(s) : s.driver === 'tty' ? createTtyTransport(s) : createSerialPortTransport(s);
      serials.push(transport);
      await attachSerial(transport, ingest);
    }
    if (options.mqtt) mqtt = await openMqttTransport(options.mqtt, onFrame);
  } catch (e) {
    await closeLinks();
    throw e;
  }

  const file = options.statusFile === undefined ? statusFilePath(db.store.path) : options.statusFile;
  if (file !== null) {
    writer = new StatusFileWriter(file, BRIDGE_STATUS_INTERVAL_MS, status);
    await writer.flush();
  }

  let stopping: Promise<void> | null = null;
  return {
    udpPort: udp?.port ?? null,
    status,
    stop() {
      stopping ??= (async () => {
        await ingest.close(); // commit and ack while the links are still open
        await closeLinks();
        running = false;
        await writer?.close();
      })();
      return stopping;
    },
  };
}

/** A broker URL without its password, for the status file. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
