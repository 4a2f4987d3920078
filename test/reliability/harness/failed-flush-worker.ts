/**
 * Run as a separate process by failed-flush.test.ts: opens the folder argv[2] with durability
 * 'log' (held writes when argv[4] is more than 1), sets n = 0 and applies `ADD n :1` once, then
 * arms a failure of the next redo-log flush and applies `ADD n :1` again through argv[3] ('sync':
 * the synchronous API, 'promises': db.promises). It prints the value of n once the first update
 * returned ("n <value>"), the second update's error ("error <code> <message>") and the value of
 * n after it ("n <value>", or "closed" when the store closed), then SIGKILLs itself at once: no
 * close, no later write, nothing left to settle the failed write but what happened before the error.
 */
import { open } from '../../../src/edgetable.js';
import { FaultInjector } from '../../../src/storage/fault-injector.js';
import { StorageError } from '../../../src/storage/storage-error.js';

const [path, via, perCommit] = process.argv.slice(2);
const faults = new FaultInjector();
const db = open({ path: path!, durability: 'log', faults, logWritesPerCommit: Number(perCommit ?? 1) });
db.createTable({ TableName: 'Counters', BillingMode: 'PAY_PER_REQUEST', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }] });
db.putItem({ TableName: 'Counters', Item: { pk: { S: 'c' }, n: { N: '0' } } });
const add = { TableName: 'Counters', Key: { pk: { S: 'c' } }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } };
const value = (): string => (db.store.closed ? 'closed' : `n ${db.getItem({ TableName: 'Counters', Key: { pk: { S: 'c' } } }).Item?.n?.N}`);

async function main(): Promise<void> {
  if (via === 'promises') await db.promises.updateItem(add);
  else db.updateItem(add);
  process.stdout.write(`${value()}\n`);
  faults.failLogFlushAt = faults.logFlushes + 1;
  try {
    if (via === 'promises') await db.promises.updateItem(add);
    else db.updateItem(add);
    process.stdout.write('error none\n');
  } catch (err) {
    const code = err instanceof StorageError ? err.code : 'other';
    process.stdout.write(`error ${code} ${(err as Error).message.replaceAll('\n', ' ')}\n`);
  }
  process.stdout.write(`${value()}\n`);
  process.kill(process.pid, 'SIGKILL');
}

void main();
