/**
 * The "one item at most once" rule shared by TransactWriteItems and TransactGetItems (spec §6.7,
 * §6.8), applied once each action's table is resolved. The requests' own members are parsed in
 * ops/request/ (transact-items-input.ts and each operation's parse).
 */
import { ValidationException } from '../../model/errors.js';
import type { EncodedKey } from '../../codec/item-key.js';

export const DUPLICATE_ITEM_MESSAGE = 'Transaction request cannot include multiple operations on one item';

/** Remembers the items a transaction touches and rejects the second action on one item. */
export class ItemSet {
  private readonly seen = new Set<string>();

  add(tableName: string, key: EncodedKey): void {
    const id = `${tableName}\u0000${Buffer.from(key.bytes.buffer, key.bytes.byteOffset, key.bytes.byteLength).toString('latin1')}`;
    if (this.seen.has(id)) throw new ValidationException(DUPLICATE_ITEM_MESSAGE);
    this.seen.add(id);
  }
}
