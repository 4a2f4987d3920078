/**
 * LMDB's environment copy (Store.copyTo) of a store folder, run as its own process by backups
 * (`node store-copy-child.js <store> <target dir>`): the copy follows every page pointer of the
 * store, so a damaged page crashes this process, never the one backing up. Exit 0 once the copy
 * is written and flushed; 1 with the error's code and message as one JSON line on stdout.
 */
import { Store } from './store.js';
import { toStorageError } from './storage-error.js';

const [path, target] = process.argv.slice(2);
if (path === undefined || target === undefined) {
  process.stderr.write('usage: store-copy-child <store folder> <target folder>\n');
  process.exit(2);
}
try {
  // The caller checked the store's structure just before; this process only copies.
  const store = Store.open({ path, readOnly: true, checkOnOpen: 'never' });
  try {
    await store.copyTo(target);
  } finally {
    store.close();
  }
} catch (err) {
  const error = toStorageError(err, `copy store ${path}`);
  process.stdout.write(`${JSON.stringify({ code: error.code, message: error.message })}\n`);
  process.exitCode = 1;
}
