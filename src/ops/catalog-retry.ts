/**
 * The one place where an operation meets a catalog another process changed under it: an
 * operation resolves its tables before its write txn, and the txn checks them
 * (table/table.ts checkCurrent). When the check fails, the txn has written nothing; the catalog
 * is reloaded and the whole operation re-runs from the top (validation, table resolution,
 * capacity reservation: all refunded by the failed attempt). Inside a write group the re-run
 * joins the same group txn, which holds the writer lock, so it sees the catalog as it is.
 */
import { InternalServerError } from '../model/errors.js';
import { CatalogChangedError } from '../table/catalog-changed.js';
import type { EngineContext } from './engine-context.js';

/** Attempts before giving up: each failed one means another process changed the table meanwhile. */
export const MAX_CATALOG_ATTEMPTS = 20;

export function retryOnCatalogChange<R>(op: (ctx: EngineContext, request: unknown) => R): (ctx: EngineContext, request: unknown) => R {
  return (ctx, request) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return op(ctx, request);
      } catch (error) {
        if (!(error instanceof CatalogChangedError)) throw error;
        if (attempt >= MAX_CATALOG_ATTEMPTS) {
          throw new InternalServerError(`table ${error.tableName} kept changing under the request (${attempt} attempts); retry it`, { cause: error });
        }
        ctx.catalog.reload();
      }
    }
  };
}
