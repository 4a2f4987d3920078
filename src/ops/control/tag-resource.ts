/**
 * TagResource: adds tags to a table, or replaces the values of keys it already has, persisted in
 * the table's catalog definition. Checks in order: the request (tag-resource-request.ts: shape,
 * ResourceArn, at least one tag, no reserved key) -> the table -> at most MAX_TAGS_PER_RESOURCE
 * tags on the table afterwards. Returns `{}`.
 */
import { INVALID_PARAMETERS, ValidationException } from '../../model/errors.js';
import { MAX_TAGS_PER_RESOURCE } from '../../model/limits.js';
import type { Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';
import { requireTableOfArn } from '../request/resource-arn.js';
import { parseTagResourceRequest, type Tag } from '../request/tag-resource-request.js';

export function tagResource(ctx: EngineContext, request: unknown) {
  const { resourceArn, tableName, tags } = parseTagResourceRequest(request);
  const table = requireTableOfArn(ctx, tableName, resourceArn);
  const merged = new Map(table.def.Tags.map((t) => [t.Key, t.Value]));
  for (const tag of tags) merged.set(tag.Key, tag.Value);
  if (merged.size > MAX_TAGS_PER_RESOURCE) throw new ValidationException(`${INVALID_PARAMETERS}The number of tags exceeds the limit of ${MAX_TAGS_PER_RESOURCE}`);
  saveTags(ctx, table, [...merged].map(([Key, Value]) => ({ Key, Value })));
  return {};
}

/**
 * Writes a table's new tag list into its catalog definition; CatalogChangedError (the operation
 * re-runs, ops/catalog-retry.ts) when another process changed the table meanwhile.
 */
export function saveTags(ctx: EngineContext, table: Table, tags: readonly Tag[]): void {
  ctx.store.write((txn) => ctx.catalog.replace(txn, table, { ...table.def, Tags: tags }));
  ctx.catalog.reload();
}
