/**
 * TagResource: adds tags to a table, or replaces the values of keys it already has, persisted in
 * the table's catalog definition. Checks in order: request shape (schemas.ts) -> ResourceArn
 * (resource-arn.ts) -> at least one tag -> no reserved `aws:` key -> the table -> at most
 * MAX_TAGS_PER_RESOURCE tags on the table afterwards. Returns `{}`.
 */
import { INVALID_PARAMETERS, ValidationException } from '../../model/errors.js';
import { MAX_TAGS_PER_RESOURCE } from '../../model/limits.js';
import type { Table } from '../../table/table.js';
import type { EngineContext } from '../engine-context.js';
import { requireTableOfArn, tableNameOfArn } from '../request/resource-arn.js';
import { checkRequest } from '../request/schema/check-request.js';
import { REQUEST_SCHEMAS } from '../request/schema/schemas.js';

export type Tag = { readonly Key: string; readonly Value: string };

export const RESERVED_TAG_PREFIX = 'aws:';

export function tagResource(ctx: EngineContext, request: unknown) {
  const req = checkRequest(REQUEST_SCHEMAS.TagResource, request);
  const arn = req.ResourceArn as string;
  const tags = req.Tags as Tag[];
  const name = tableNameOfArn(arn, 'TagResource');
  if (tags.length === 0) throw new ValidationException('Atleast one Tag needs to be provided as Input.');
  for (const tag of tags) {
    if (tag.Key.startsWith(RESERVED_TAG_PREFIX)) throw new ValidationException(`${INVALID_PARAMETERS}Tag keys beginning with ${RESERVED_TAG_PREFIX} are reserved: ${tag.Key}`);
  }
  const table = requireTableOfArn(ctx, name, arn);
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
