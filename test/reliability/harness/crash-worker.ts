/**
 * The crash harness's child process. Protocol over the IPC channel:
 *   child -> parent  { t: 'ready' }                      imports done, waiting
 *   parent -> child  { t: 'go', path, seed, cycle }
 *   child -> parent  { t: 'started', items }             store open, model read
 *   child -> parent  { t: 'ack', i, ok, fp }             op i RETURNED (ok = it succeeded,
 *                                                        false = it was rejected as expected)
 *   child -> parent  { t: 'unexpected', i, detail }      op i did not do what the model expects
 *   child -> parent  { t: 'idle' }                       ran MAX_OPS_PER_CYCLE ops
 * The parent SIGKILLs the child at a random moment. An ack is sent only after the op's method
 * returned, i.e. after its txn committed (durability 'sync': fsynced).
 */
import { open } from '../../../src/edgetable.js';
import type { OperationName } from '../../../src/ops/operations.js';
import { readTable } from './read-table.js';
import { MAX_OPS_PER_CYCLE, Workload, toRequest } from './workload.js';

type Go = { t: 'go'; path: string; seed: number; cycle: number };

function send(message: Record<string, unknown>): void {
  process.send!(message);
}

function run(go: Go): void {
  const db = open({ path: go.path });
  const model = readTable(db);
  send({ t: 'started', items: model.size });
  const workload = new Workload(go.seed, go.cycle);
  for (let i = 0; i < MAX_OPS_PER_CYCLE; i++) {
    const { op, ok, fingerprint } = workload.next(model);
    const { operation, request, rejection } = toRequest(op);
    let succeeded = true;
    try {
      const response = db.execute(operation as OperationName, request) as { UnprocessedItems?: Record<string, unknown> };
      if (response.UnprocessedItems && Object.keys(response.UnprocessedItems).length > 0) {
        send({ t: 'unexpected', i, detail: 'BatchWriteItem returned UnprocessedItems' });
        return;
      }
    } catch (error) {
      const name = (error as Error).name;
      if (ok || name !== rejection) {
        send({ t: 'unexpected', i, detail: `${operation} threw ${name}: ${(error as Error).message}` });
        return;
      }
      succeeded = false;
    }
    if (succeeded !== ok) {
      send({ t: 'unexpected', i, detail: `${operation} succeeded but the model expected ${rejection ?? 'a rejection'}` });
      return;
    }
    send({ t: 'ack', i, ok, fp: fingerprint });
  }
  send({ t: 'idle' });
}

process.on('message', (message: Go) => {
  if (message.t === 'go') run(message);
});
send({ t: 'ready' });
