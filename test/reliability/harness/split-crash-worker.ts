/**
 * The split-crash test's child (split-crash.test.ts). argv: path. Begins splitting partition 0 of
 * `Readings`, copies a few bounded steps while writing (each acknowledged to the parent over IPC
 * after it returned), reports { t: 'mid' } and keeps writing until the parent SIGKILLs it.
 */
import { open } from '../../../src/edgetable.js';
import { beginSplit, splitStep } from '../../../src/table/partition-split.js';

const [path] = process.argv.slice(2) as [string];
const db = open({ path, splitCheckIntervalMs: 0, ttlSweepIntervalMs: 0 });
const ctx = db.context;
let n = 0;
const write = (): void => {
  const i = 1_000_000 + n++;
  db.putItem({ TableName: 'Readings', Item: { sensor: { S: `s${i % 300}` }, ts: { N: String(i) }, level: { N: String(i % 5) } } });
  process.send!({ t: 'ack', key: `s${i % 300}/${i}` });
};
if (!beginSplit(ctx.store, ctx.catalog, 'Readings', 0)) throw new Error('the split did not begin');
for (let step = 0; step < 3; step++) {
  write();
  if (splitStep(ctx.store, ctx.catalog, 'Readings', 500) !== 'copying') throw new Error('the split ended too early');
}
process.send!({ t: 'mid' });
setInterval(write, 1);
