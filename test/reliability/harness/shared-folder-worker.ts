/**
 * A process of the several-processes test (shared-folder.test.ts). argv: role path durationMs id.
 *   writer   puts items `w<id>-<i>` (single puts and batches of 5) until the time is up, and reports
 *            every acknowledged key (the call returned) to the parent over IPC.
 *   promises-writer  the same through db.promises, 16 writes in flight, a key acknowledged when its
 *            promise resolved: its groups commit on a worker thread (store.writeAsync) and must
 *            recompute when another process committed in between (reported as `conflicts`).
 *   alterer  meanwhile splits the table's largest partition, adds and deletes a GSI (waiting for
 *            the backfill) and turns TTL on and off, as another `edgetable` process on the folder.
 * Both report { t: 'done', ... } and exit 0; an unexpected error is reported and exits 1.
 */
import { open, type Edgetable } from '../../../src/edgetable.js';

const [role, path, durationText, id] = process.argv.slice(2) as [string, string, string, string];
const until = Date.now() + Number(durationText);
const TABLE = 'Shared';
/**
 * SHARED_FOLDER_SORT_KEY=1: the table has a sort key (table format 3, partition ids): every process
 * writes the same 40 partition keys, each item its own sort key, and an acknowledged key is
 * `pk#sk`. The processes race to give the partition keys their ids and then use each other's.
 */
const SORTED = process.env.SHARED_FOLDER_SORT_KEY === '1';
/** SHARED_FOLDER_DURABILITY=log: every process opens with durability 'log' (they hand the folder to each other, redo-handover.ts). */
const LOGGED = process.env.SHARED_FOLDER_DURABILITY === 'log';

/** The item named `key`, and the acknowledged key it is reported as. */
function itemOf(key: string, i: number, k: number): Record<string, { S: string } | { N: string }> {
  const base = { g: { S: `g${(i + k) % 7}` }, n: { N: String(i) }, exp: { N: String(4_000_000_000 + i) } };
  if (!SORTED) return { pk: { S: key }, ...base };
  const [pk, sk] = sortedKey(key);
  return { pk: { S: pk }, sk: { N: sk }, ...base };
}

/** `w<id>-<i>[-<k>]` as a partition key shared by every process and a sort key unique to the write. */
function sortedKey(key: string): [string, string] {
  const numbers = key.slice(1).split('-').map(Number);
  const [id, i, k] = [numbers[0]!, numbers[1]!, numbers[2] ?? 0];
  return [`s${(i * 5 + k) % 40}`, String(id * 1e9 + i * 10 + k)];
}

function ackOf(key: string): string {
  return SORTED ? sortedKey(key).join('#') : key;
}

type Item = ReturnType<typeof itemOf>;

/** Where `item` is stored as this process's catalog sees the table: its partition among the table's, and the split in progress. */
function placementOf(db: Edgetable, item: Item): string {
  const table = db.context.catalog.require(TABLE);
  const key = table.keyOf(item);
  const split = table.def.split ? `split of ${table.def.split.parent} into ${table.def.split.left.id}/${table.def.split.right.id}` : 'no split';
  return `partition ${table.partitionOf(key.hash).range.id} of [${table.def.partitions.map((p) => p.id).join(',')}], ${split}, hash ${key.hash}`;
}

function stillThere(db: Edgetable, item: Item): boolean {
  const Key: Item = SORTED ? { pk: item.pk!, sk: item.sk! } : { pk: item.pk! };
  return (db.getItem({ TableName: TABLE, Key, ConsistentRead: true }) as { Item?: unknown }).Item !== undefined;
}

function send(message: Record<string, unknown>): void {
  process.send!(message);
}

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

async function writer(): Promise<void> {
  const db = open({ path, durability: LOGGED ? 'log' : 'relaxed', splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
  let i = 0;
  let acked: string[] = [];
  let first: { item: Item; placed: string } | undefined;
  let vanished = false;
  while (Date.now() < until) {
    const keys = i % 4 === 3 ? [0, 1, 2, 3, 4].map((k) => `w${id}-${i}-${k}`) : [`w${id}-${i}`];
    const items = keys.map((key, k) => itemOf(key, i, k));
    if (items.length === 1) db.putItem({ TableName: TABLE, Item: items[0]! });
    else {
      const out = db.batchWriteItem({ RequestItems: { [TABLE]: items.map((Item) => ({ PutRequest: { Item } })) } }) as { UnprocessedItems?: Record<string, unknown[]> };
      if (Object.keys(out.UnprocessedItems ?? {}).length > 0) throw new Error('unprocessed items');
    }
    acked.push(...keys.map(ackOf));
    if (i === 0) first = { item: items[0]!, placed: placementOf(db, items[0]!) };
    i++;
    if (acked.length >= 200) {
      send({ t: 'acks', keys: acked });
      acked = [];
    }
    if (i % 50 === 0) {
      // A lost write is found when it goes, with where it was written and the table as it is now.
      if (first !== undefined && !vanished && !stillThere(db, first.item)) {
        vanished = true;
        send({ t: 'vanished', detail: `${ackOf(`w${id}-0`)} (first write, ${first.placed}) is gone after write ${i}; the table now: ${placementOf(db, first.item)}` });
      }
      await yieldTurn();
    }
  }
  send({ t: 'acks', keys: acked });
  db.close();
  send({ t: 'done', writes: i });
}

async function promisesWriter(): Promise<void> {
  const db = open({ path, ...(LOGGED ? { durability: 'log' as const } : {}), splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
  let i = 0;
  let acked: string[] = [];
  const inFlight = new Set<Promise<void>>();
  while (Date.now() < until) {
    const keys = i % 4 === 3 ? [0, 1, 2, 3, 4].map((k) => `w${id}-${i}-${k}`) : [`w${id}-${i}`];
    const items = keys.map((key, k) => itemOf(key, i, k));
    const write = items.length === 1
      ? db.promises.putItem({ TableName: TABLE, Item: items[0]! }).then(() => undefined)
      : db.promises.batchWriteItem({ RequestItems: { [TABLE]: items.map((Item) => ({ PutRequest: { Item } })) } }).then((out) => {
          if (Object.keys((out as { UnprocessedItems?: Record<string, unknown[]> }).UnprocessedItems ?? {}).length > 0) throw new Error('unprocessed items');
        });
    const settled: Promise<void> = write.then(() => {
      acked.push(...keys.map(ackOf));
      if (acked.length >= 200) {
        send({ t: 'acks', keys: acked });
        acked = [];
      }
    }).finally(() => inFlight.delete(settled));
    inFlight.add(settled);
    i++;
    if (inFlight.size >= 16) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  send({ t: 'acks', keys: acked });
  const { conflicts, onThisThread } = db.store.asyncCommitStats;
  db.close();
  send({ t: 'done', writes: i, conflicts, onThisThread });
}

async function alterer(): Promise<void> {
  const db = open({ path, durability: LOGGED ? 'log' : 'relaxed', splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
  let splits = 0;
  let alters = 0;
  let round = 0;
  while (Date.now() < until) {
    round++;
    const table = db.describeTable({ TableName: TABLE }).Table as { Partitions: { PartitionId: number; ItemCount: number }[]; GlobalSecondaryIndexes?: { IndexName: string }[] };
    const largest = [...table.Partitions].sort((a, b) => b.ItemCount - a.ItemCount)[0]!;
    if (db.splitPartition(TABLE, largest.PartitionId)) splits++;
    await yieldTurn();
    if (round % 3 === 1) {
      const has = (table.GlobalSecondaryIndexes ?? []).some((ix) => ix.IndexName === 'ByG');
      db.updateTable(has
        ? { TableName: TABLE, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: 'ByG' } }] }
        : {
            TableName: TABLE,
            AttributeDefinitions: [{ AttributeName: 'g', AttributeType: 'S' }],
            GlobalSecondaryIndexUpdates: [{ Create: { IndexName: 'ByG', KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } } }],
          });
      alters++;
      await db.whenIndexesActive();
    } else if (round % 3 === 2) {
      const ttl = db.describeTimeToLive({ TableName: TABLE }).TimeToLiveDescription as { TimeToLiveStatus: string };
      db.updateTimeToLive({ TableName: TABLE, TimeToLiveSpecification: { Enabled: ttl.TimeToLiveStatus !== 'ENABLED', AttributeName: 'exp' } });
      alters++;
    }
    await yieldTurn();
  }
  await db.whenIndexesActive();
  db.close();
  send({ t: 'done', splits, alters });
}

process.on('message', (m: { t: string }) => {
  if (m.t !== 'go') return;
  (role === 'writer' ? writer() : role === 'promises-writer' ? promisesWriter() : alterer()).then(
    () => process.exit(0),
    (error: unknown) => {
      send({ t: 'error', detail: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error) });
      process.exit(1);
    },
  );
});
send({ t: 'ready' });
