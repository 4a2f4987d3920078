/** An operation that meets a catalog another process changed re-runs after a reload, a bounded number of times. */
import { describe, expect, it } from 'vitest';
import { MAX_CATALOG_ATTEMPTS, retryCatalogChanges, retryCatalogChangesAsync } from '../../src/ops/catalog-retry.js';
import { CatalogChangedError } from '../../src/table/catalog-changed.js';

function counting() {
  const catalog = { reloads: 0, reload() { this.reloads += 1; } };
  const retried: string[] = [];
  return { catalog, retried, onRetry: (e: CatalogChangedError) => retried.push(e.tableName) };
}

const runners = {
  sync: <R>(catalog: { reload(): void }, attempt: () => R, onRetry?: (e: CatalogChangedError) => void) => Promise.resolve().then(() => retryCatalogChanges(catalog, attempt, onRetry)),
  async: <R>(catalog: { reload(): void }, attempt: () => R, onRetry?: (e: CatalogChangedError) => void) => retryCatalogChangesAsync(catalog, async () => attempt(), onRetry),
};

describe.each(Object.entries(runners))('retryCatalogChanges (%s)', (_, run) => {
  it('re-runs the attempt after reloading the catalog, and returns what the first clean attempt returns', async () => {
    const { catalog, retried, onRetry } = counting();
    let calls = 0;
    const result = await run(catalog, () => {
      calls += 1;
      if (calls < 3) throw new CatalogChangedError('Orders');
      return 'done';
    }, onRetry);
    expect(result).toBe('done');
    expect(calls).toBe(3);
    expect(catalog.reloads).toBe(2);
    expect(retried).toEqual(['Orders', 'Orders']);
  });

  it(`gives up after ${MAX_CATALOG_ATTEMPTS} attempts with an InternalServerError naming the table`, async () => {
    const { catalog } = counting();
    let calls = 0;
    const failure = run(catalog, () => {
      calls += 1;
      throw new CatalogChangedError('Orders');
    });
    await expect(failure).rejects.toMatchObject({ name: 'InternalServerError', message: `table Orders kept changing under the request (${MAX_CATALOG_ATTEMPTS} attempts); retry it` });
    expect(calls).toBe(MAX_CATALOG_ATTEMPTS);
    expect(catalog.reloads).toBe(MAX_CATALOG_ATTEMPTS - 1);
  });

  it('passes any other error through at once, without a reload', async () => {
    const { catalog } = counting();
    const failure = run(catalog, () => {
      throw new RangeError('not a catalog change');
    });
    await expect(failure).rejects.toThrow(RangeError);
    expect(catalog.reloads).toBe(0);
  });
});
