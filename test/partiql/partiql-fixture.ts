/**
 * An engine with the tables the PartiQL specifications run against, called in-process (no SDK,
 * no HTTP: the wire path is partiql-sdk.test.ts's), and a helper that captures a thrown error.
 *
 *   Items: partition key id (S), no sort key; seeded with id 'x' = { a: 1, b: true }.
 *   Pairs: partition key p (S), sort key s (N).
 */
import type { Edgetable } from '../../src/edgetable.js';
import { useTempDbs, tableRequest } from '../ops/temp-db.js';

export function usePartiqlDb(): () => Edgetable {
  const temp = useTempDbs();
  return () => {
    const db = temp.open({ durability: 'relaxed' });
    db.createTable(tableRequest('Items', ['id', 'S']));
    db.createTable(tableRequest('Pairs', ['p', 'S'], ['s', 'N']));
    db.putItem({ TableName: 'Items', Item: { id: { S: 'x' }, a: { N: '1' }, b: { BOOL: true } } });
    return db;
  };
}

/** The error `fn` throws (fails the test when it returns). */
export function thrown(fn: () => unknown): Error & Record<string, unknown> {
  try {
    fn();
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected an error, but the call returned');
}
