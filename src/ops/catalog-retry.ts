/**
 * The one place where an operation meets a catalog another process changed under it: an
 * operation resolves its tables before its write txn, and the txn checks them
 * (table/table.ts checkCurrent). When the check fails, the txn has written nothing; the catalog
 * is reloaded and the whole operation re-runs from the top (validation, table resolution,
 * capacity reservation: all refunded by the failed attempt). Inside a write group the re-run
 * joins the same group txn, which holds the writer lock, so it sees the catalog as it is.
 * Other writers that resolve tables before their txn (the hub's batch apply) use
 * retryCatalogChanges the same way.
 */
import { InternalServerError } from '../model/errors.js';
import { CatalogChangedError } from '../table/catalog-changed.js';
import type { EngineContext } from './engine-context.js';

/** Attempts before giving up: each failed one means another process changed the table meanwhile. */
export const MAX_CATALOG_ATTEMPTS = 20;

/**
 * Runs `attempt` until it does not throw CatalogChangedError, reloading `catalog` before each
 * re-run; `attempt` must resolve every table it uses itself, each time. After
 * MAX_CATALOG_ATTEMPTS failed attempts, InternalServerError (cause: the last CatalogChangedError).
 */
export function retryCatalogChanges<R>(catalog: { reload(): void }, attempt: () => R, onRetry?: (error: CatalogChangedError) => void): R {
  for (let count = 1; ; count++) {
    try {
      return attempt();
    } catch (error) {
      prepareRetry(error, count, catalog, onRetry);
    }
  }
}

/** retryCatalogChanges for an attempt that commits asynchronously (the hub's store.writeAsync apply). */
export async function retryCatalogChangesAsync<R>(catalog: { reload(): void }, attempt: () => Promise<R>, onRetry?: (error: CatalogChangedError) => void): Promise<R> {
  for (let count = 1; ; count++) {
    try {
      return await attempt();
    } catch (error) {
      prepareRetry(error, count, catalog, onRetry);
    }
  }
}

/** Rethrows what is not a catalog change, gives up after the last attempt, else reloads for the next one. */
function prepareRetry(error: unknown, count: number, catalog: { reload(): void }, onRetry: ((error: CatalogChangedError) => void) | undefined): void {
  if (!(error instanceof CatalogChangedError)) throw error;
  if (count >= MAX_CATALOG_ATTEMPTS) {
    throw new InternalServerError(`table ${error.tableName} kept changing under the request (${count} attempts); retry it`, { cause: error });
  }
  onRetry?.(error);
  catalog.reload();
}

/** An operation under retryCatalogChanges, without a closure per call (every request comes here). */
export function retryOnCatalogChange<R>(op: (ctx: EngineContext, request: unknown) => R): (ctx: EngineContext, request: unknown) => R {
  return (ctx, request) => {
    for (let count = 1; ; count++) {
      try {
        return op(ctx, request);
      } catch (error) {
        prepareRetry(error, count, ctx.catalog, undefined);
      }
    }
  };
}
