import { EdgetableError } from '../model/errors.js';

/**
 * A write was rejected because a synced shard's unacknowledged change records already fill the
 * outbox budget (whenFull: 'reject'). Nothing of the write was applied; retry once the hub has
 * caught up, or raise `outboxBudgetBytes`.
 */
export class OutboxFullError extends EdgetableError {
  constructor(
    readonly table: string,
    readonly shard: number,
    readonly pendingBytes: number,
    readonly budgetBytes: number,
  ) {
    super(
      `Sync outbox full: table ${table} shard ${shard} holds ${pendingBytes} unacknowledged bytes, over its budget of ${budgetBytes} bytes (whenFull: reject); the write was not applied`,
    );
  }
}
