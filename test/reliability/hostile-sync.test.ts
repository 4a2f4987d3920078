/**
 * Hostile sync batches to the hub (issue 9 part 3), generated with fast-check and bounded in time
 * (FUZZ_MS): random bytes, wrong types in every envelope slot, CBOR heads claiming huge counts,
 * deep nesting, 64 KB-2 MB strings, records breaking key and size rules, a decompression bomb,
 * valid batches on another device's topic, and valid batches with mutated bytes
 * (harness/hostile-batches.ts), published through a broker like any device's.
 *
 * Every message gets the hub's verdict, matched to it by order (at most 32 in flight): a counted
 * rejection (status().rejected / onReject) that committed nothing, or an applied batch, into the
 * hostile device's own table only (per-device mode). No message may go unanswered or
 * end in an uncounted error. Afterwards an honest device still syncs and its hub table equals its
 * own; the heap after a forced GC stays bounded.
 */
import { connect, type MqttClient } from 'mqtt';
import { describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { startHub } from '../../src/hub/start-hub.js';
import { startBroker } from '../sync/broker.js';
import { createReadings, tableContents, tempDb, tempPath, until, writeReadings, type Cleanup } from '../sync/fixtures.js';
import { budgetMs, fuzzFor, settledHeapBytes } from './harness/fuzz-budget.js';
import { HOSTILE_DEVICE, TABLE, hostileMessages } from './harness/hostile-batches.js';

const MiB = 1024 * 1024;

describe('hostile sync batches to the hub', () => {
  it('rejects and counts every malformed batch, applies nothing of it, keeps applying valid batches, bounded memory', async () => {
    const cleanups: Cleanup[] = [];
    try {
      const broker = await startBroker();
      cleanups.push(() => broker.stop());
      const honest = tempDb(cleanups, 'etb-hostile-honest-');
      const hubPath = tempPath(cleanups, 'etb-hostile-hub-');
      const hubStore = { db: open({ path: hubPath }) };
      cleanups.push(() => (hubStore.db.store.closed ? undefined : hubStore.db.close()));
      createReadings(honest.db, TABLE, 1);
      writeReadings(honest.db, 0, 50);
      let onReject: ((topic: string) => void) | undefined;
      const hub = startHub({ db: hubStore.db, url: broker.url, mode: 'per-device', onReject: (r) => onReject?.(r.topic) });
      cleanups.push(() => hub.stop());
      const sync = await honest.db.startSync({ url: broker.url, deviceId: 'honest', tables: [TABLE] });
      cleanups.push(() => sync.stop());
      await sync.flushed();

      const mallory = await connected(connect(broker.url, { clientId: 'mallory', protocolVersion: 4, reconnectPeriod: 0 }));
      cleanups.push(() => new Promise<void>((r) => mallory.end(true, {}, () => r())));
      // Small messages, few in flight: without this, Nagle's algorithm and delayed ACKs add ~40 ms stalls.
      (mallory.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
      // The hostile device announces the honest device's schema as its own, so its batches reach applyBatch.
      const schema = new Promise<Buffer>((resolve) => mallory.on('message', (topic, payload) => (topic.endsWith('/schema') ? resolve(payload) : undefined)));
      await mallory.subscribeAsync(`edgetable/v1/honest/${TABLE}/schema`, { qos: 1 });
      await mallory.publishAsync(`edgetable/v1/${HOSTILE_DEVICE}/${TABLE}/schema`, await schema, { qos: 1 });
      await until(() => hub.status().tables.includes(`${TABLE}.${HOSTILE_DEVICE}`), 10_000, 'the hostile device table');
      const honestHubTable = `${TABLE}.honest`;
      const honestBefore = tableContents(hubStore.db, honestHubTable);
      // The hub handles one connection's messages in order, each ending in exactly one of: a
      // counted rejection or an applied batch (at most one write txn; LMDB skips empty commits,
      // e.g. a batch of duplicates). Its commits run off the event loop (store.writeAsync), and
      // the link hands over the next message only once the previous one is answered, its commit
      // durable and counted (mqtt-link.ts), so verdicts never overlap. So when a rejection arrives,
      // applied + rejected - 1 is the index of its message (its topic must be that message's:
      // a misattribution shows), and since the previous rejection at most as many txns were
      // committed as batches applied: the rejected batch committed nothing.
      const base = { applied: hub.status().batchesApplied, rejected: hub.status().rejectedTotal, lastError: hub.status().lastError };
      const processed = () => hub.status().batchesApplied - base.applied + (hub.status().rejectedTotal - base.rejected);
      // A refused batch (decodable, but fails validation) is counted in rejectedTotal and commits
      // one txn: its records go to the hub's dead-letter table (apply-batch.ts).
      const committedBatches = () => hub.status().batchesApplied + hub.status().refusedBatches;
      const sent: { kind: string; expect: 'reject' | 'any'; bytes: number; topic: string }[] = [];
      const rejectedAt = new Set<number>();
      const problems: string[] = [];
      let previous = { txn: hubStore.db.store.stats().lastTxnId, applied: base.applied };
      onReject = (topic) => {
        const k = processed() - 1;
        rejectedAt.add(k);
        if (topic !== sent[k]?.topic) problems.push(`rejection on ${topic} attributed to message ${k} (${sent[k]?.kind}), sent on ${sent[k]?.topic}`);
        const now = { txn: hubStore.db.store.stats().lastTxnId, applied: committedBatches() };
        if (now.txn - previous.txn > now.applied - previous.applied) problems.push(`message ${k} (${sent[k]?.kind}): rejected, yet ${now.txn - previous.txn} txns were committed for ${now.applied - previous.applied} batches applied`);
        previous = now;
      };
      const heapBefore = settledHeapBytes();
      const started = performance.now();
      const tried = await fuzzFor(hostileMessages('honest'), budgetMs(10_000), 9, async (m) => {
        sent.push({ kind: m.kind, expect: m.expect, bytes: m.payload.length, topic: m.topic });
        mallory.publish(m.topic, Buffer.from(m.payload.buffer, m.payload.byteOffset, m.payload.byteLength), { qos: 1 });
        // At most 32 messages in flight: bounded client queues, and a silent drop shows up as a stall.
        if (sent.length - processed() > 32) await settle(() => processed() >= sent.length - 8, `the hub to answer message ${processed()} (${sent[processed()]?.kind})`);
      });
      await settle(() => processed() === sent.length, `the hub to answer every message (${processed()} of ${sent.length}; next: ${sent[processed()]?.kind})`);
      const ms = performance.now() - started;
      const heapGrowth = settledHeapBytes() - heapBefore;
      const outcomes = new Map<string, { rejected: number; applied: number }>();
      sent.forEach((m, i) => {
        const o = outcomes.get(m.kind) ?? { rejected: 0, applied: 0 };
        if (rejectedAt.has(i)) o.rejected += 1;
        else {
          o.applied += 1;
          if (m.expect === 'reject') problems.push(`message ${i} (${m.kind}, ${m.bytes} bytes): applied, must be rejected`);
        }
        outcomes.set(m.kind, o);
      });
      const table = [...outcomes].map(([k, o]) => `${k}: ${o.rejected} rejected, ${o.applied} applied`).join('; ');
      console.log(`hostile sync batches: ${tried} tried in ${(ms / 1000).toFixed(1)} s; ${table}; heap growth ${(heapGrowth / MiB).toFixed(1)} MiB`);

      expect(hub.status().lastError).toBe(base.lastError);
      expect(rejectedAt.size).toBe(hub.status().rejectedTotal - base.rejected);
      expect(problems.slice(0, 10)).toEqual([]);
      expect(hub.status().rejected.length).toBeLessThanOrEqual(100);
      expect(rejectedAt.size).toBeGreaterThan(tried / 2);
      expect(tried).toBeGreaterThan(100);
      expect(heapGrowth).toBeLessThan(48 * MiB);
      // Nothing reached the honest device's hub table; the engine's indexes agree.
      expect(tableContents(hubStore.db, honestHubTable)).toEqual(honestBefore);
      expect(hubStore.db.verify().Differences).toBe(0);

      // The hub keeps applying valid batches.
      writeReadings(honest.db, 50, 400);
      honest.db.deleteItem({ TableName: TABLE, Key: { sensor: { S: 's-7' }, ts: { N: '7' } } });
      await sync.flushed();
      expect(tableContents(hubStore.db, honestHubTable)).toEqual(tableContents(honest.db, TABLE));
      expect(hub.status().online).toBe(true);
    } finally {
      for (const c of cleanups.reverse()) await c();
    }
  }, 120_000);
});

async function settle(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after 15 s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

function connected(client: MqttClient): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });
}
