/**
 * The hub side of the two-way suite in its own process (a back office writing at the hub, on the
 * other core): `fork('bench/two-way-hub-child.ts', [configJson])`.
 *
 * config = { path, url? }. Without url it starts an embedded aedes broker on a free loopback port
 * first. It opens a hub store at `path` (durability 'sync'), starts startHub with the DynamoDB API
 * on a loopback port, and answers over IPC:
 *   -> { ready: { url, broker } }                   once the hub is connected and serving
 *   <- { create: { table } }                        CreateTable through the API (AWS SDK)
 *   -> { created: true }
 *   <- { write: { table, from, to } }               readings [from, to) through the API with
 *                                                   BatchWriteItem x25, WRITERS calls in flight
 *   -> { written: { seconds } }
 *   <- { stop: { clearRetained: string[] } }        clears those retained topics, stops, then
 *   -> { stopped: { lastError? } }                  and exits.
 */
import { BatchWriteItemCommand, CreateTableCommand, DynamoDBClient, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { open } from '../src/edgetable.js';
import { startHub } from '../src/hub/start-hub.js';
import { benchBroker, clearRetained } from './bench-broker.js';
import { wireItem } from './contenders/edgetable.js';
import { SENSORS, reading } from './workload.js';

export type TwoWayHubConfig = { path: string; url?: string };
export type TwoWayHubMessage =
  | { ready: { url: string; broker: 'aedes (embedded)' | 'external' } }
  | { created: true }
  | { written: { seconds: number } }
  | { stopped: { lastError?: string } }
  | { error: string };

/** BatchWriteItem calls in flight: a back office writing from a few workers. */
const WRITERS = 4;

const config = JSON.parse(process.argv[2] ?? '{}') as TwoWayHubConfig;
const send = (m: TwoWayHubMessage, then?: () => void) => process.send!(m, undefined, {}, then);

const broker = await benchBroker(config.url);
const url = broker.url;
const db = open({ path: config.path, ttlSweepIntervalMs: 0, splitCheckIntervalMs: 0 });
const hub = startHub({ db, url, port: 0 });
await hub.ready;
const client = new DynamoDBClient({ region: 'us-east-1', endpoint: `http://127.0.0.1:${hub.status().api!.port}`, credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
const deadline = Date.now() + 20_000;
while (!hub.status().online) {
  if (Date.now() > deadline) throw new Error('timed out waiting for the hub to connect');
  await new Promise((r) => setTimeout(r, 20));
}
send({ ready: { url, broker: broker.kind } });

process.on('message', (m) => {
  const msg = m as { create?: { table: string }; write?: { table: string; from: number; to: number }; stop?: { clearRetained: string[] } };
  void (async () => {
    if (msg.create) {
      await client.send(
        new CreateTableCommand({
          TableName: msg.create.table,
          KeySchema: [
            { AttributeName: 'sensorId', KeyType: 'HASH' },
            { AttributeName: 'ts', KeyType: 'RANGE' },
          ],
          AttributeDefinitions: [
            { AttributeName: 'sensorId', AttributeType: 'S' },
            { AttributeName: 'ts', AttributeType: 'N' },
          ],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      send({ created: true });
    } else if (msg.write) {
      const t0 = performance.now();
      await writeReadings(msg.write.table, msg.write.from, msg.write.to);
      send({ written: { seconds: (performance.now() - t0) / 1000 } });
    } else if (msg.stop) {
      if (broker.kind === 'external') await clearRetained(url, msg.stop.clearRetained);
      const s = hub.status();
      client.destroy();
      await hub.stop();
      db.close();
      await broker.close();
      send({ stopped: s.lastError ? { lastError: s.lastError } : {} }, () => process.exit(0));
    }
  })().catch((e: unknown) => send({ error: String(e) }));
});

async function writeReadings(table: string, from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const start = next;
      next = Math.min(to, next + 25);
      let requests: WriteRequest[] = [];
      for (let k = start; k < next; k++) requests.push({ PutRequest: { Item: wireItem(reading(k % SENSORS, Math.floor(k / SENSORS))) as never } });
      while (requests.length > 0) {
        const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
        requests = out.UnprocessedItems?.[table] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, worker));
}

