/**
 * Thrown inside a write txn, before anything is written, when a table definition the caller
 * resolved outside the txn is no longer the one stored: another process (or an earlier txn of
 * this one) split a partition, added an index, changed TTL, or dropped or re-created the table
 * meanwhile. The operation must be re-run from the top on a reloaded catalog
 * (ops/operations.ts does this for every operation); it is never shown to a client.
 */
export class CatalogChangedError extends Error {
  constructor(readonly tableName: string) {
    super(`the definition of table ${tableName} changed since it was read; the operation is retried`);
    this.name = 'CatalogChangedError';
  }
}
