/**
 * Reads a hub table whole, or the items of a list of partition keys, one bounded page at a time,
 * for a device's base read (down-publisher.ts): the device re-reads what it subscribes to, then
 * continues from the change log. Each page is one short read txn; the progress (the last stored
 * key read, and which partition key) is plain data the publisher persists, so a base read resumes
 * after a hub restart. Items come in stored-key order: partitions by hash range, then keys.
 */
import { startsWith } from '../codec/key-bytes.js';
import { decodeItem } from '../codec/item-value.js';
import { recordBody } from '../codec/item-record.js';
import { readHash } from '../codec/partition-hash.js';
import type { Item } from '../model/attribute-value.js';
import type { Store } from '../storage/store.js';
import type { ReadTxn } from '../storage/txn.js';
import type { Version } from '../stream/item-versions.js';
import type { Table } from '../table/table.js';

export type BaseProgress = { readonly pk: number; readonly after?: string };

/** `key`: where the item is stored (the page's position). */
export type BaseItem = { readonly key: Uint8Array; readonly item: Item; readonly version: Version };

export type BasePage = { readonly items: readonly BaseItem[]; readonly next: BaseProgress; readonly done: boolean };

/**
 * `prefixes`: the stored-key prefixes of the subscribed partition keys; undefined: the whole table.
 * `versionOf` reads each item's version in the page's txn, so an item and its version agree.
 */
export function readBasePage(
  store: Store,
  table: Table,
  prefixes: readonly Uint8Array[] | undefined,
  progress: BaseProgress,
  limit: number,
  maxBytes: number,
  versionOf: (txn: ReadTxn, key: Uint8Array) => Version,
): BasePage {
  return store.read((txn) => {
    const items: BaseItem[] = [];
    let bytes = 0;
    let after = progress.after === undefined ? undefined : Uint8Array.from(Buffer.from(progress.after, 'hex'));
    const full = () => items.length >= limit || bytes >= maxBytes;
    const take = (key: Uint8Array, value: Uint8Array) => {
      const copy = Uint8Array.prototype.slice.call(key);
      // Versions are kept by the item's key in item-key.ts's layout, not by where it is stored.
      items.push({ key: copy, item: decodeItem(recordBody(value), 0, table.names), version: versionOf(txn, table.keyOfStored(txn, copy, value).bytes) });
      bytes += value.length;
    };
    if (prefixes === undefined) {
      const afterHash = after === undefined ? -1 : table.hashOfStored(txn, after);
      const partitions = [...table.partitions].sort((a, b) => a.range.start - b.range.start).filter((p) => p.range.end > afterHash);
      for (const p of partitions) {
        const from = after !== undefined && afterHash >= p.range.start ? { start: after, startExclusive: true } : {};
        for (const { key, value } of txn.cursor(p.db, from)) {
          if (full()) return { items, next: { pk: 0, after: hex(items[items.length - 1]!.key) }, done: false };
          take(key, value);
        }
      }
      return { items, next: { pk: 0, ...(items.length > 0 ? { after: hex(items[items.length - 1]!.key) } : progress.after ? { after: progress.after } : {}) }, done: true };
    }
    let lastPk = progress.pk;
    for (let i = progress.pk; i < prefixes.length; i++) {
      const hash = readHash(prefixes[i]!, 0);
      const partition = table.partitionOf(hash);
      const prefix = table.storedPrefixIn(txn, { hash, bytes: prefixes[i]! });
      if (prefix === undefined) continue; // a partition key a partition-id table never stored

      for (const { key, value } of txn.cursor(partition.db, after !== undefined ? { start: after, startExclusive: true } : { start: prefix })) {
        if (!startsWith(key, prefix)) break;
        // The page ends with the last item taken, whichever partition key it belongs to.
        if (full()) return { items, next: { pk: lastPk, after: hex(items[items.length - 1]!.key) }, done: false };
        take(key, value);
        lastPk = i;
      }
      after = undefined;
    }
    return { items, next: { pk: prefixes.length }, done: true };
  });
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
