/**
 * The hub side of the sync suite in its own process (so the hub's applies and fsyncs run on the
 * other core, as on a real hub): `fork('bench/sync-hub-child.ts', [configJson])`.
 *
 * config = { path, url? }. Without url it starts an embedded aedes broker on a free loopback port
 * first. It opens a hub store at `path` (durability 'sync': an ack means the batch is on disk),
 * starts startHub, and answers over IPC:
 *   -> { ready: { url, broker } }                 once the hub is connected
 *   <- { stop: { clearRetained: string[] } }      clears those retained topics (schemas this
 *                                                 run announced on a shared broker), stops, then
 *   -> { stopped: HubSummary }                    and exits.
 */
import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import { connectAsync } from 'mqtt';
import { open } from '../src/edgetable.js';
import { startHub } from '../src/hub/start-hub.js';

export type HubChildConfig = { path: string; url?: string };
export type HubSummary = { recordsApplied: number; batchesApplied: number; rejectedTotal: number; lastError?: string };
export type HubChildMessage = { ready: { url: string; broker: 'aedes (embedded)' | 'external' } } | { stopped: HubSummary } | { error: string };

const config = JSON.parse(process.argv[2] ?? '{}') as HubChildConfig;
const send = (m: HubChildMessage, then?: () => void) => process.send!(m, undefined, {}, then);

let aedes: Aedes | undefined;
let server: Server | undefined;
let url = config.url;
if (!url) {
  aedes = await Aedes.createBroker();
  const broker = aedes;
  server = createServer((socket) => void broker.handle(socket));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  url = `mqtt://127.0.0.1:${(server.address() as { port: number }).port}`;
}
const db = open({ path: config.path, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
const hub = startHub({ db, url });
await until(() => hub.status().online, 20_000, 'the hub to connect');
send({ ready: { url, broker: aedes ? 'aedes (embedded)' : 'external' } });

process.on('message', (m) => {
  const { stop } = m as { stop: { clearRetained: string[] } };
  void (async () => {
    if (!aedes && stop.clearRetained.length > 0) await clearRetained(url!, stop.clearRetained);
    const s = hub.status();
    await hub.stop();
    db.close();
    server?.close();
    if (aedes) await new Promise<void>((resolve) => aedes!.close(() => resolve()));
    send({ stopped: { recordsApplied: s.recordsApplied, batchesApplied: s.batchesApplied, rejectedTotal: s.rejectedTotal, ...(s.lastError ? { lastError: s.lastError } : {}) } }, () => process.exit(0));
  })().catch((e: unknown) => send({ error: String(e) }, () => process.exit(1)));
});

/** An empty retained message clears the broker's copy, so later hubs there do not see our tables. */
async function clearRetained(brokerUrl: string, topics: string[]): Promise<void> {
  // mqtt directly, not sync/'s MqttLink: its close() abandons QoS 1 publishes still in flight.
  const client = await connectAsync(brokerUrl, { clientId: `edgetable-bench-clear-${process.pid}`, protocolVersion: 4, connectTimeout: 10_000, reconnectPeriod: 0 });
  try {
    for (const t of topics) await client.publishAsync(t, '', { qos: 1, retain: true });
  } finally {
    await client.endAsync();
  }
}

async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
