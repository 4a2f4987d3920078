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
import { open } from '../src/edgetable.js';
import { startHub } from '../src/hub/start-hub.js';
import { benchBroker, clearRetained } from './bench-broker.js';

export type HubChildConfig = { path: string; url?: string };
export type HubSummary = { recordsApplied: number; batchesApplied: number; rejectedTotal: number; lastError?: string };
export type HubChildMessage = { ready: { url: string; broker: 'aedes (embedded)' | 'external' } } | { stopped: HubSummary } | { error: string };

const config = JSON.parse(process.argv[2] ?? '{}') as HubChildConfig;
const send = (m: HubChildMessage, then?: () => void) => process.send!(m, undefined, {}, then);

const broker = await benchBroker(config.url);
const url = broker.url;
const db = open({ path: config.path, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
const hub = startHub({ db, url });
await until(() => hub.status().online, 20_000, 'the hub to connect');
send({ ready: { url, broker: broker.kind } });

process.on('message', (m) => {
  const { stop } = m as { stop: { clearRetained: string[] } };
  void (async () => {
    if (broker.kind === 'external') await clearRetained(url, stop.clearRetained);
    const s = hub.status();
    await hub.stop();
    db.close();
    await broker.close();
    send({ stopped: { recordsApplied: s.recordsApplied, batchesApplied: s.batchesApplied, rejectedTotal: s.rejectedTotal, ...(s.lastError ? { lastError: s.lastError } : {}) } }, () => process.exit(0));
  })().catch((e: unknown) => send({ error: String(e) }, () => process.exit(1)));
});

async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
