/**
 * The bridge of the bridge suite in its own process, so its memory is the bridge's alone:
 * `fork('bench/bridge-child.ts', [configJson])`, config = { path }. Opens a durable store (acks
 * mean on disk), starts startBridge on UDP 127.0.0.1 (a free port) and samples its memory every
 * SAMPLE_MS. IPC, one exchange at a time:
 *   -> { ready: { port } }
 *   <- { begin: true }  -> { begun: true }       starts a run: drops earlier samples, notes totals
 *   <- { end: true }    -> { ended: BridgeRun }  the run's samples and counter deltas
 *   <- { stop: true }   -> { stopped: true }     stops the bridge, closes the store, exits
 */
import { open } from '../src/edgetable.js';
import { startBridge } from '../src/bridge/start-bridge.js';

export type MemorySample = { ms: number; rss: number; heapUsed: number; heapTotal: number; external: number };
export type BridgeRun = { samples: MemorySample[]; written: number; duplicate: number; corrupt: number; failed: number; batches: number; acksSent: number };
export type BridgeChildMessage = { ready: { port: number } } | { begun: true } | { ended: BridgeRun } | { stopped: true } | { error: string };

const SAMPLE_MS = 100;
const { path } = JSON.parse(process.argv[2] ?? '{}') as { path: string };
const send = (m: BridgeChildMessage, then?: () => void) => process.send!(m, undefined, {}, then);

const db = open({ path, durability: 'sync', ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
const bridge = await startBridge({ db, udp: { host: '127.0.0.1', port: 0 }, statusFile: null, allowUnauthenticated: true });
let samples: MemorySample[] = [];
let t0 = performance.now();
let before = { ...bridge.status().totals };
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  samples.push({ ms: Math.round(performance.now() - t0), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external });
}, SAMPLE_MS);
send({ ready: { port: bridge.udpPort! } });

process.on('message', (m) => {
  const msg = m as { begin?: true; end?: true; stop?: true };
  if (msg.begin) {
    samples = [];
    t0 = performance.now();
    before = { ...bridge.status().totals };
    send({ begun: true });
  } else if (msg.end) {
    const t = bridge.status().totals;
    send({ ended: { samples, written: t.written - before.written, duplicate: t.duplicate - before.duplicate, corrupt: t.corrupt - before.corrupt, failed: t.failed - before.failed, batches: t.batches - before.batches, acksSent: t.acksSent - before.acksSent } });
  } else if (msg.stop) {
    clearInterval(sampler);
    bridge.stop().then(
      () => {
        db.close();
        send({ stopped: true }, () => process.exit(0));
      },
      (e: unknown) => send({ error: String(e) }, () => process.exit(1)),
    );
  }
});
