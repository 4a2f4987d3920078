/**
 * One page of a Query or Scan (spec §6.3): walk entries in key order, stop when `Limit` items have
 * been evaluated or the items read reach 1 MB, apply the filter, project, and remember the last
 * evaluated key. Sizes come from record headers, so items that are only counted or filtered out
 * by key are never decoded needlessly, and unfiltered, unprojected items are decoded straight
 * to the response form.
 */
import { decodeAttributes, decodeItem, decodeItemToWire } from '../codec/item-value.js';
import type { Item, WireItem } from '../model/attribute-value.js';
import { extractKey } from '../model/key-rules.js';
import { MAX_PAGE_BYTES } from '../model/limits.js';
import type { PrimaryKeySchema } from '../model/key-schema.js';
import { evaluateCondition, type Condition, type Projection } from '../expr/index.js';
import { recordBody, recordItemSize } from '../table/item-record.js';
import { shapeItem } from './item-request.js';

export type Select = 'ALL_ATTRIBUTES' | 'ALL_PROJECTED_ATTRIBUTES' | 'SPECIFIC_ATTRIBUTES' | 'COUNT';

export type PageOptions = {
  readonly limit: number | undefined;
  readonly filter: Condition | undefined;
  readonly projection: Projection | undefined;
  readonly select: Select;
  /** Key attributes a LastEvaluatedKey carries. */
  readonly keySchema: PrimaryKeySchema;
};

export class PageCollector {
  readonly items: WireItem[] = [];
  count = 0;
  scannedCount = 0;
  bytes = 0;
  lastEvaluatedKey: Item | undefined;
  private readonly keyNames: ReadonlySet<string>;

  constructor(private readonly options: PageOptions) {
    const { partitionKey, sortKey } = options.keySchema;
    this.keyNames = new Set(sortKey ? [partitionKey.name, sortKey.name] : [partitionKey.name]);
  }

  /**
   * Evaluates one stored record (a zero-copy view, used only during this call). Returns false when
   * the page is full and the walk must stop.
   */
  accept(record: Uint8Array): boolean {
    const { filter, projection, select, limit } = this.options;
    this.scannedCount++;
    this.bytes += recordItemSize(record);
    const body = recordBody(record);
    const full = (limit !== undefined && this.scannedCount >= limit) || this.bytes >= MAX_PAGE_BYTES;
    if (filter || projection) {
      const item = decodeItem(body);
      if (!filter || evaluateCondition(filter, item)) {
        this.count++;
        if (select !== 'COUNT') this.items.push(shapeItem(item, projection));
      }
      if (full) this.lastEvaluatedKey = extractKey(item, this.options.keySchema);
    } else {
      this.count++;
      if (select !== 'COUNT') this.items.push(decodeItemToWire(body));
      if (full) this.lastEvaluatedKey = extractKey(decodeAttributes(body, this.keyNames), this.options.keySchema);
    }
    return !full;
  }
}
