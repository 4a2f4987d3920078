/**
 * One page of a Query or Scan (spec §6.3): walk entries in key order, stop when `Limit` items have
 * been evaluated or the items read reach 1 MB, apply the filter, project, and remember the last
 * evaluated key. Sizes come from record headers, so items that are only counted are never
 * decoded needlessly, and unfiltered, unprojected items are decoded straight to the response form.
 * On a local secondary index, `fetch` supplies the base item when the request needs attributes
 * the index does not project.
 */
import type { AttributeValue, Item, WireValueOutput, WireItemOutput } from '../../model/attribute-value.js';
import { MAX_PAGE_BYTES } from '../../model/limits.js';
import { evaluateCondition, type Condition, type Projection } from '../../expr/index.js';
import { decodeRecord, decodeRecordAttributes, decodeRecordToWire, recordBody, recordItemSize } from '../../codec/item-record.js';
import { shapeItem } from '../request/item-request.js';
import { toWireItem } from '../../model/binary.js';
import type { ConsumedCapacity } from '../../capacity/consumed-capacity.js';
import type { NameDecoder } from '../../codec/attribute-name-codes.js';

export type Select = 'ALL_ATTRIBUTES' | 'ALL_PROJECTED_ATTRIBUTES' | 'SPECIFIC_ATTRIBUTES' | 'COUNT';

export type PageOptions = {
  readonly limit: number | undefined;
  readonly filter: Condition | undefined;
  readonly projection: Projection | undefined;
  readonly select: Select;
  /** Key attributes a LastEvaluatedKey carries. */
  readonly keyNames: readonly string[];
  /** Base item for an index entry, when the request needs more than the index projects. */
  readonly fetch?: ((entry: Item) => Item | undefined) | undefined;
  /** Records to skip as if filtered out: expired items not yet swept (ttl/expiry.ts hiddenTest). */
  readonly hidden?: ((body: Uint8Array) => boolean) | undefined;
  /** The table's attribute-name dictionary (table.names): base records may carry coded names. */
  readonly names?: NameDecoder | undefined;
};

export type PageResponse = {
  Items?: WireItemOutput[];
  Count: number;
  ScannedCount: number;
  LastEvaluatedKey?: WireItemOutput;
  ConsumedCapacity?: ConsumedCapacity;
};

export class PageCollector {
  readonly items: WireItemOutput[] = [];
  count = 0;
  scannedCount = 0;
  bytes = 0;
  /** In the response form (B as base64), ready to return. */
  lastEvaluatedKey: WireItemOutput | undefined;
  constructor(private readonly options: PageOptions) {}

  /** Looked up only by the paths that decode a key alone (COUNT, hidden items): most pages never do. */
  private get keyNameSet(): ReadonlySet<string> {
    return keyNameSetOf(this.options.keyNames);
  }

  /**
   * Evaluates one stored record (a zero-copy view, used only during this call). Returns false when
   * the page is full and the walk must stop. The body is decoded in place (no subarray per record)
   * and at most once: the LastEvaluatedKey comes from the decoded item when there is one.
   */
  accept(record: Uint8Array): boolean {
    const { filter, projection, select, limit, fetch, hidden, names } = this.options;
    this.scannedCount++;
    this.bytes += recordItemSize(record);
    const full = (limit !== undefined && this.scannedCount >= limit) || this.bytes >= MAX_PAGE_BYTES;
    if (hidden !== undefined && hidden(recordBody(record))) {
      if (full) this.lastEvaluatedKey = this.keyOf(decodeRecordAttributes(record, this.keyNameSet));
      return !full;
    }
    if (filter || projection || fetch) {
      const entry = decodeRecord(record, names);
      const item = fetch ? (fetch(entry) ?? entry) : entry;
      if (!filter || evaluateCondition(filter, item)) {
        this.count++;
        // ALL_PROJECTED_ATTRIBUTES returns the entry even when a filter needed the base item.
        if (select !== 'COUNT') this.items.push(shapeItem(select === 'ALL_PROJECTED_ATTRIBUTES' ? entry : item, projection));
      }
      if (full) this.lastEvaluatedKey = this.keyOf(entry);
    } else if (select !== 'COUNT') {
      this.count++;
      const item = decodeRecordToWire(record, names);
      this.items.push(item);
      if (full) this.lastEvaluatedKey = this.wireKeyOf(item);
    } else {
      this.count++;
      if (full) this.lastEvaluatedKey = this.keyOf(decodeRecordAttributes(record, this.keyNameSet));
    }
    return !full;
  }

  /** The Query/Scan response of this page. */
  response(capacity: ConsumedCapacity | undefined): PageResponse {
    // Built by assignment in the response's member order: cheaper than spreading optional parts.
    const out: PageResponse =
      this.options.select !== 'COUNT' ? { Items: this.items, Count: this.count, ScannedCount: this.scannedCount } : { Count: this.count, ScannedCount: this.scannedCount };
    if (this.lastEvaluatedKey) out.LastEvaluatedKey = this.lastEvaluatedKey;
    if (capacity) out.ConsumedCapacity = capacity;
    return out;
  }

  private keyOf(item: Item): WireItemOutput {
    const key: Record<string, AttributeValue> = {};
    for (const name of this.options.keyNames) key[name] = item[name]!;
    return toWireItem(key);
  }

  /** The key of an item already in the response form; its values are copied, not shared with Items. */
  private wireKeyOf(item: WireItemOutput): WireItemOutput {
    const key: Record<string, WireValueOutput> = {};
    for (const name of this.options.keyNames) key[name] = { ...item[name]! } as WireValueOutput;
    return key;
  }
}

/** One Set per key-name list (read targets are cached per table, so their lists are too). */
const keyNameSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function keyNameSetOf(names: readonly string[]): ReadonlySet<string> {
  let set = keyNameSets.get(names);
  if (set === undefined) keyNameSets.set(names, (set = new Set(names)));
  return set;
}
