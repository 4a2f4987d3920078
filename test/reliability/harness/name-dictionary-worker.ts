/**
 * A process of the shared-dictionary test (name-dictionary.test.ts). argv: path durationMs id.
 * Puts items `p<id>-<i>` whose attribute names come from a pool both processes draw from in
 * different orders, so they race to give the same new names codes (every other write through
 * db.promises, whose commits are replayed off the main thread); each value is `<name>:<key>`,
 * so any name decoded wrongly shows. Between writes it reads back items the other process wrote
 * and checks them. Reports acknowledged keys and `{ t: 'error' }` for any wrong item.
 */
import { open } from '../../../src/edgetable.js';

const [path, durationText, id] = process.argv.slice(2) as [string, string, string];
const until = Date.now() + Number(durationText);
const other = id === '1' ? '2' : '1';
const POOL = 300;

function send(message: Record<string, unknown>): void {
  process.send!(message);
}

/** The item `pk`: its key plus 4 pool names picked from i, walking the pool in this process's direction. */
export function itemOf(pk: string, i: number, id: string): Record<string, { S: string }> {
  const item: Record<string, { S: string }> = { pk: { S: pk } };
  for (let k = 0; k < 4; k++) {
    const n = id === '1' ? (i * 4 + k) % POOL : (POOL - 1 - ((i * 4 + k) % POOL));
    const name = `attr${n}`;
    item[name] = { S: `${name}:${pk}` };
  }
  return item;
}

function check(pk: string, item: Record<string, { S?: string }> | undefined): string | undefined {
  if (item === undefined) return undefined;
  for (const [name, value] of Object.entries(item)) {
    if (name === 'pk') continue;
    if (value.S !== `${name}:${pk}`) return `${pk}: attribute ${name} holds ${JSON.stringify(value)}`;
  }
  return undefined;
}

const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

async function run(): Promise<void> {
  const db = open({ path, durability: 'relaxed', splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
  let i = 0;
  let acked: string[] = [];
  while (Date.now() < until) {
    const pk = `p${id}-${i}`;
    // Every other write goes through db.promises (recorded, then replayed off the main thread).
    if (i % 2 === 0) db.putItem({ TableName: 'Names', Item: itemOf(pk, i, id) });
    else await db.promises.putItem({ TableName: 'Names', Item: itemOf(pk, i, id) });
    acked.push(pk);
    const theirs = `p${other}-${Math.floor(Math.random() * (i + 1))}`;
    const wrong = check(theirs, db.getItem({ TableName: 'Names', Key: { pk: { S: theirs } } }).Item as Record<string, { S?: string }> | undefined);
    if (wrong) send({ t: 'error', detail: wrong });
    i++;
    if (i % 20 === 0) {
      send({ t: 'acks', keys: acked });
      acked = [];
      await yieldTurn();
    }
  }
  send({ t: 'acks', keys: acked });
  db.close();
  send({ t: 'done', writes: i });
}

process.on('message', (m: { t: string }) => {
  if (m.t !== 'go') return;
  run().then(
    () => process.exit(0),
    (error: unknown) => {
      send({ t: 'error', detail: error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error) });
      process.exit(1);
    },
  );
});
send({ t: 'ready' });
