import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempStores } from './temp-store.js';

const temp = useTempStores();
const child = fileURLToPath(new URL('./fixtures/second-process.ts', import.meta.url));

describe('Store: a second process on the same folder', () => {
  it('sees writes made by another process, after that process grew the map past ours', () => {
    const store = temp.open({ mapSizeBytes: 1024 * 1024 });
    const db = store.database('shared');
    store.write((txn) => txn.put(db, Uint8Array.of(0xff, 0xff, 0xff, 0xff), Uint8Array.of(1)));
    expect(store.read((txn) => txn.count(db))).toBe(1); // leaves an idle reader in this process
    execFileSync(process.execPath, ['--import', 'tsx', child, store.path, '1000'], { stdio: 'pipe', timeout: 30_000 });
    store.read((txn) => {
      expect(txn.count(db)).toBe(1001);
      expect(txn.get(db, Uint8Array.of(0, 0, 3, 0xe7))?.[0]).toBe(999 & 0xff);
    });
    expect(store.stats().mapSizeBytes).toBeGreaterThanOrEqual(10 * 1024 * 1024);
    store.write((txn) => txn.put(db, Uint8Array.of(0xff), new Uint8Array(100_000)));
    expect(store.read((txn) => txn.count(db))).toBe(1002);
  });
});
