/**
 * What the index layer needs to know about a secondary index. The catalog's LocalIndexDefinition
 * and GlobalIndexDefinition (table/table-definition.ts) satisfy it; defining it here keeps
 * indexes/ below table/ in the layering.
 */
import type { PrimaryKeySchema } from '../model/key-schema.js';

export type SecondaryIndex = {
  readonly kind: 'local' | 'global';
  readonly IndexName: string;
  readonly keySchema: PrimaryKeySchema;
  readonly Projection: { readonly ProjectionType: 'KEYS_ONLY' | 'INCLUDE' | 'ALL'; readonly NonKeyAttributes?: readonly string[] };
  readonly IndexStatus?: 'CREATING' | 'UPDATING' | 'DELETING' | 'ACTIVE';
};
