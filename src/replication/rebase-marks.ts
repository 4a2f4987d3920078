/**
 * A device's request to re-read a received table whole from the hub at its next connect, kept in
 * its `_sync` database until a base read of the table completes here:
 *
 *   rebase  key := 'E' table     value := JSON { reason: string, atMs: number }
 *
 * Written by `edgetable salvage` (cli/commands/salvage.ts) for every table of a salvaged store:
 * salvage copied what it could read, so the device's copy of a table it receives may lack items
 * (and their version records may have survived without them), and the hub's down cursor, which
 * says what the device holds, no longer does. While the mark is there the down agent
 * (sync/down-agent.ts) subscribes to the table without naming its TableId, as a device with a new
 * copy of the table does, and the hub answers with a base read (hub/down-publisher.ts): nothing
 * at the hub changes. The mark goes in the txn that records that base read complete
 * (sweep-base.ts); a crash before then leaves it, and the next connect asks again.
 *
 * A mark of a table the device does not receive is never read; it goes with the table
 * (stream/table-sync-records.ts).
 */
import { SYNC_DB } from '../partition/database-names.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';
import { REBASE_MARK_PREFIX } from '../stream/table-sync-records.js';

export type RebaseMark = { readonly reason: string; readonly atMs: number };

const enc = new TextEncoder();
const dec = new TextDecoder();

const rebaseKey = (table: string): Uint8Array => enc.encode(`${REBASE_MARK_PREFIX}${table}`);

export function readRebaseMark(txn: ReadTxn, syncDb: Database, table: string): RebaseMark | undefined {
  const raw = txn.get(syncDb, rebaseKey(table));
  return raw ? (JSON.parse(dec.decode(raw)) as RebaseMark) : undefined;
}

export function clearRebaseMark(txn: WriteTxn, syncDb: Database, table: string): boolean {
  return txn.delete(syncDb, rebaseKey(table));
}

/** Marks each of `tables` in one txn of `store` (writable, nobody else's). */
export function markForRebase(store: Store, tables: readonly string[], mark: RebaseMark): void {
  store.write((txn) => {
    const syncDb = store.database(SYNC_DB);
    for (const table of tables) txn.put(syncDb, rebaseKey(table), enc.encode(JSON.stringify(mark)));
  });
}
