/**
 * A second process for the reader-table test: opens the store at argv[2], reads one item and
 * prints `ok` or the error as JSON `{ name, code, message }` on stdout.
 */
import { open } from '../../../src/edgetable.js';
import { TABLE } from './workload.js';

try {
  const db = open({ path: process.argv[2]! });
  try {
    db.getItem({ TableName: TABLE, Key: { pk: { S: 'p0' }, sk: { N: '0' } } });
  } finally {
    db.close();
  }
  process.stdout.write('ok\n');
} catch (error) {
  const e = error as Error & { code?: string };
  process.stdout.write(`${JSON.stringify({ name: e.name, code: e.code, message: e.message })}\n`);
}
