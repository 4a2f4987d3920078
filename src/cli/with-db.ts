/**
 * Opens the store at `path` for one command and always closes it. Reading commands open it
 * read-only, so a mistyped path fails instead of creating an empty store.
 */
import { open, type Edgetable } from '../edgetable.js';

export async function withDb<T>(path: string, run: (db: Edgetable) => T | Promise<T>, options: { readOnly?: boolean; throttling?: boolean } = {}): Promise<T> {
  const db = open({ path, readOnly: options.readOnly === true, ...(options.throttling === false ? { throttling: false } : {}) });
  try {
    return await run(db);
  } finally {
    db.close();
  }
}

export function printJson(out: (text: string) => void, value: unknown): void {
  out(`${JSON.stringify(value, null, 2)}\n`);
}
