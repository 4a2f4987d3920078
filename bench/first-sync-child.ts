/**
 * The device side of bench/first-sync.ts, run as compiled JavaScript (bench/compile.ts) so its
 * anonymous memory is the engine's, not tsx's: `node <compiled> '{"path","url","deviceId"}'`.
 * Opens the filled store, starts sync of Readings (its first: a base read), samples its own
 * RssAnon every 20 ms, prints base-read progress on stderr every 2 s, and when everything is
 * acknowledged prints one JSON line of figures on stdout.
 */
import { open } from '../src/index.js';
import { watchBaseProgress } from '../src/cli/base-progress.js';
import { anonRssBytes } from './proc.js';

const config = JSON.parse(process.argv[2]!) as { path: string; url: string; deviceId: string };
const db = open({ path: config.path });
let peak = anonRssBytes() ?? 0;
const atOpen = peak;
const sampler = setInterval(() => {
  peak = Math.max(peak, anonRssBytes() ?? 0);
}, 20);
const started = Date.now();
const sync = await db.startSync({ url: config.url, deviceId: config.deviceId, tables: ['Readings'] });
const progress = watchBaseProgress(() => sync.status(), 2000, (line) => process.stderr.write(`${line}\n`));
await sync.flushed();
const wallMs = Date.now() - started;
progress.step();
progress.stop();
peak = Math.max(peak, anonRssBytes() ?? 0);
clearInterval(sampler);
const status = sync.status();
const outbox = status.shards.reduce((n, s) => n + s.lastSeq, 0);
await sync.stop();
db.close();
process.stdout.write(`${JSON.stringify({ wallMs, peakAnonRss: peak, anonRssAtOpen: atOpen, recordsAcked: status.recordsAcked, batchesSent: status.batchesSent, outboxRecords: outbox })}\n`);
