/**
 * Evaluates one TransactWriteAction against the stored item inside the transaction's write txn,
 * without writing: the outcome says whether the action is healthy (its planned write) or why it
 * cancels the transaction. Nothing is written until every action is healthy (transact-write-items.ts).
 */
import { readUnits, writeUnits } from '../../capacity/units.js';
import type { Item } from '../../model/attribute-value.js';
import { toWireItem } from '../../model/binary.js';
import { ValidationException, type CancellationReason } from '../../model/errors.js';
import { itemSize } from '../../model/item-size.js';
import { MAX_ITEM_BYTES } from '../../model/limits.js';
import { applyUpdate, evaluateCondition } from '../../expr/index.js';
import type { Table } from '../../table/table.js';
import type { OldState, WriteEffects, WriteSession } from '../../table/write-session.js';
import type { ActionTarget, TransactWriteAction } from './transact-write-action.js';
import { checkIndexKeys, checkUpdatedIndexKeys } from '../../table/check-index-keys.js';

/** What a healthy action will do. */
export type PlannedWrite =
  | { kind: 'put'; target: ActionTarget; item: Item; size: number; old: OldState }
  | { kind: 'delete'; target: ActionTarget; old: NonNullable<OldState> }
  | { kind: 'none' };

export type ActionOutcome =
  | {
      ok: true;
      write: PlannedWrite;
      /** Transactional write units (2 per 1 KB of max(old, new)). */
      writeUnits: number;
      /** Transactional read units a replay of this request reports (2 per 4 KB of max(old, new)). */
      replayReadUnits: number;
    }
  | { ok: false; reason: CancellationReason };

export const NONE_REASON: CancellationReason = Object.freeze({ Code: 'None' });
const CONDITION_FAILED = 'The conditional request failed';
const UPDATE_TOO_LARGE = 'Item size to update has exceeded the maximum allowed size';

export function evaluateAction(session: WriteSession, action: TransactWriteAction): ActionOutcome {
  if (action.kind === 'Invalid') return { ok: false, reason: { Code: 'ValidationError', Message: action.message } };
  const { target } = action;
  const needItem = action.condition !== undefined || action.kind === 'Update';
  const previous = needItem ? session.readItem(action.table, target.partition, target.key) : session.readState(action.table, target.partition, target.key);
  const oldSize = previous?.size;
  if (action.condition && !evaluateCondition(action.condition, previous?.item)) {
    const item = action.returnOnFailure === 'ALL_OLD' && previous?.item ? { Item: toWireItem(previous.item) } : {};
    return { ok: false, reason: { Code: 'ConditionalCheckFailed', Message: CONDITION_FAILED, ...item } };
  }
  switch (action.kind) {
    case 'Put':
      return healthy({ kind: 'put', target, item: action.item, size: action.size, old: previous }, Math.max(oldSize ?? 0, action.size));
    case 'Update': {
      let next: Item;
      let updatedNew: Item;
      try {
        const applied = applyUpdate(action.update, previous?.item, action.table.keyNames);
        next = { ...applied.item, ...target.keyItem };
        updatedNew = applied.updatedNew;
      } catch (e) {
        if (e instanceof ValidationException) return { ok: false, reason: { Code: 'ValidationError', Message: e.message } };
        throw e;
      }
      const size = itemSize(next);
      if (size > MAX_ITEM_BYTES) return { ok: false, reason: { Code: 'ValidationError', Message: UPDATE_TOO_LARGE } };
      try {
        checkUpdatedIndexKeys(action.table, updatedNew);
        checkIndexKeys(action.table, next);
      } catch (e) {
        if (e instanceof ValidationException) return { ok: false, reason: { Code: 'ValidationError', Message: e.message } };
        throw e;
      }
      return healthy({ kind: 'put', target, item: next, size, old: previous }, Math.max(oldSize ?? 0, size));
    }
    case 'Delete':
      return healthy(previous === undefined ? { kind: 'none' } : { kind: 'delete', target, old: previous }, oldSize ?? 0);
    case 'ConditionCheck':
      return healthy({ kind: 'none' }, oldSize ?? 0);
  }
}

/** Applies a healthy action's planned write through the session; returns the index write units. */
export function applyPlannedWrite(session: WriteSession, action: TransactWriteAction, write: PlannedWrite): WriteEffects | undefined {
  if (write.kind === 'put') return session.putItem(action.table, write.target.partition, write.target.key, write.item, write.size, write.old);
  if (write.kind === 'delete') return session.deleteItem(action.table, write.target.partition, write.target.key, write.old);
  return undefined;
}

function healthy(write: PlannedWrite, billedBytes: number): ActionOutcome {
  return { ok: true, write, writeUnits: 2 * writeUnits(billedBytes), replayReadUnits: 2 * readUnits(billedBytes, true) };
}
