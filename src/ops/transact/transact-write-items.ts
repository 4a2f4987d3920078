/**
 * TransactWriteItems (spec §6.7): up to 100 Put/Update/Delete/ConditionCheck actions applied all
 * or nothing in ONE LMDB write txn.
 *
 * parse (transact-write-items-request.ts: Coral constraints, then each action's request-only
 * rules) -> prepare (each action's table and the rules that need it:
 * top-level errors) -> one write txn {
 *   ClientRequestToken: replay or mismatch -> evaluate every action against the stored items ->
 *   any failure: throw TransactionCanceledException (the txn aborts, nothing is written) ->
 *   write every planned item -> record the token, prune expired ones } -> shape output.
 *
 * The txn callback reads the clock and builds nothing outside the txn, so the store may re-run it.
 */
import { TransactionCanceledException, ValidationException, type CancellationReason } from '../../model/errors.js';
import { MAX_TRANSACT_BYTES } from '../../model/limits.js';
import { WriteSession } from '../../table/write-session.js';
import { writeUnits } from '../../capacity/units.js';
import { reserveTransaction, writeEstimate, writeUsage } from '../write/throttle-guard.js';
import type { Units } from '../../capacity/throughput.js';
import type { EngineContext } from '../engine-context.js';
import { TransactCapacity, transactConsumedCapacity } from './transact-capacity.js';
import { ClientTokens, type ReplayUnits } from './transact-client-tokens.js';
import { ItemSet } from './transact-request.js';
import { actionRequestBytes, prepareAction, type TransactWriteAction } from './transact-write-action.js';
import { applyPlannedWrite, evaluateAction, NONE_REASON, type ActionOutcome } from './transact-write-evaluate.js';
import { ItemCollectionMetricsCollector } from '../write/item-collection-metrics.js';
import { parseTransactWriteItemsRequest } from '../request/transact-write-items-request.js';

/** Unverified wording: DynamoDB documents the 4 MB limit but no capture of its message is known. */
export const TRANSACTION_TOO_LARGE_MESSAGE = 'Transaction request size has exceeded the maximum allowed size';

type Result = { replayed: false; capacity: TransactCapacity } | { replayed: true; replay: ReplayUnits };

export function transactWriteItems(ctx: EngineContext, request: unknown) {
  // Every action's request-only rules come before any table is looked up (spec §6.7): the parse applies them.
  const { actions: requests, clientRequestToken, capacityMode, itemCollectionMetrics } = parseTransactWriteItemsRequest(request);
  let collections = new ItemCollectionMetricsCollector(itemCollectionMetrics);
  const actions: TransactWriteAction[] = [];
  const items = new ItemSet();
  let requestBytes = 0;
  for (const actionRequest of requests) {
    const action = prepareAction(ctx, actionRequest);
    if (action.kind !== 'Invalid') items.add(action.table.name, action.target.key);
    requestBytes += actionRequestBytes(action);
    actions.push(action);
  }
  if (requestBytes > MAX_TRANSACT_BYTES) throw new ValidationException(TRANSACTION_TOO_LARGE_MESSAGE);

  const nowMs = ctx.now();
  const tokens = clientRequestToken !== undefined ? ClientTokens.open(ctx.store) : undefined;

  // Estimates: 2 units per KB of a put's new item, 2 for the other actions (Invalid ones cancel anyway).
  const valid = actions.filter((a) => a.kind !== 'Invalid');
  const metered = reserveTransaction(
    ctx,
    valid.map((a) => ({
      table: a.table,
      partitionId: a.target.partition.range.id,
      keyHash: a.target.key.hash,
      direction: 'write' as const,
      estimate: writeEstimate(a.table, 2 * (a.kind === 'Put' ? writeUnits(a.size) : 1), a.kind === 'Put' ? a.item : undefined),
    })),
  );
  // Filled by the txn callback (which the store may re-run), settled once it has committed.
  const actual = new Map<TransactWriteAction, Units>();
  let result: Result;
  try {
    result = runTransaction();
  } catch (e) {
    // A cancelled transaction keeps its estimates (it was prepared); any other failure is refunded.
    if (!(e instanceof TransactionCanceledException)) for (const m of metered) m.cancel();
    throw e;
  }
  valid.forEach((a, i) => (result.replayed ? metered[i]!.cancel() : metered[i]!.settle(actual.get(a) ?? { table: 0 })));

  function runTransaction(): Result {
    return ctx.store.write((txn): Result => {
      actual.clear();
      if (tokens && clientRequestToken) {
        const replay = tokens.check(txn, clientRequestToken.token, clientRequestToken.digest, nowMs);
        if (replay) return { replayed: true, replay };
      }
      const session = new WriteSession(txn);
      collections = new ItemCollectionMetricsCollector(itemCollectionMetrics);
      const outcomes: ActionOutcome[] = actions.map((action) => evaluateAction(session, action));
      if (outcomes.some((o) => !o.ok)) {
        throw new TransactionCanceledException(outcomes.map((o): CancellationReason => (o.ok ? { ...NONE_REASON } : o.reason)));
      }
      const capacity = new TransactCapacity();
      const replayUnits = new TransactCapacity();
      actions.forEach((action, i) => {
        const outcome = outcomes[i]!;
        if (!outcome.ok) return;
        const indexUnits = applyPlannedWrite(session, action, outcome.write);
        if (action.kind === 'Invalid') return;
        const write = outcome.write;
        const keyHolder = write.kind === 'put' ? write.item : write.kind === 'delete' ? write.old.item : undefined;
        if (keyHolder) collections.add(action.requestedName, action.table, keyHolder, indexUnits?.collectionBytes);
        capacity.add(action.table.name, action.requestedName, outcome.writeUnits, indexUnits);
        actual.set(action, writeUsage(outcome.writeUnits, indexUnits));
        replayUnits.add(action.table.name, action.requestedName, outcome.replayReadUnits);
      });
      session.finish();
      if (tokens && clientRequestToken) {
        tokens.prune(txn, nowMs);
        tokens.record(txn, clientRequestToken.token, clientRequestToken.digest, nowMs, replayUnits.list().map((t) => [t.TableName, t.table] as const));
      }
      return { replayed: false, capacity };
    });
  }

  const consumed = result.replayed
    ? transactConsumedCapacity(capacityMode, 'ReadCapacityUnits', result.replay.map(([TableName, table]) => ({ TableName, table, local: {}, global: {} })))
    : transactConsumedCapacity(capacityMode, 'WriteCapacityUnits', result.capacity.list());
  return { ...(consumed ? { ConsumedCapacity: consumed } : {}), ...(result.replayed ? {} : collections.response()) };
}
