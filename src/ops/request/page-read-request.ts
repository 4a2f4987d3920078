/** What Query's and Scan's typed requests share (query-request.ts, scan-request.ts): a paged read of a table or an index. */
import type { ReturnConsumedCapacity } from '../../capacity/consumed-capacity.js';
import type { CompiledExpressions } from '../../expr/index.js';
import type { WireItem } from '../../model/attribute-value.js';
import type { Select } from '../read/read-page.js';

export type PageReadRequest = {
  /** TableName as the request spelt it (a name or an ARN), for ConsumedCapacity. */
  readonly requestedName: string;
  /** The table's name (an ARN resolved). */
  readonly tableName: string;
  /** As given: null reaches read-target.ts as it always has. */
  readonly indexName: string | null | undefined;
  readonly limit: number | undefined;
  /** Select with its default applied. */
  readonly select: Select;
  /** Select as the request gave it, which decides whether an index may be read (read-target.ts). */
  readonly selectAsked: Select | undefined;
  readonly consistent: boolean;
  readonly capacityMode: ReturnConsumedCapacity;
  readonly compiled: CompiledExpressions;
  /** The wire ExclusiveStartKey, its shape checked by the schema pass. */
  readonly exclusiveStartKey: WireItem | null | undefined;
};
