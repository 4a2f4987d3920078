import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { Store } from '../../src/storage/store.js';
import type { StoreOptions } from '../../src/storage/store-options.js';

/** Temp folders and stores made by a test, closed and removed after it. */
export function useTempStores(): { dir(): string; open(options?: Partial<StoreOptions> & { path?: string }): Store } {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dir = (): string => {
    const made = mkdtempSync(join(tmpdir(), 'edgetable-storage-'));
    dirs.push(made);
    return made;
  };
  return {
    dir,
    open(options = {}) {
      const store = Store.open({ ...options, path: options.path ?? join(dir(), 'db') });
      stores.push(store);
      return store;
    },
  };
}

export const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
export const text = (value: string): Uint8Array => new TextEncoder().encode(value);
export const hex = (value: Uint8Array | undefined): string | undefined =>
  value === undefined ? undefined : Buffer.from(value).toString('hex');
