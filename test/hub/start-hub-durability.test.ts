/**
 * A hub sends what it stores on to devices and DynamoDB, so its store makes every write durable
 * before it can be read: durabilities that defer the flush ('interval', 'relaxed') are refused
 * at start, whether the hub opens the store or is given one; 'sync' and 'log' are taken.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../../src/edgetable.js';
import { startHub } from '../../src/hub/start-hub.js';
import { tempPath, type Cleanup } from '../sync/fixtures.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// Nothing listens on port 9: a hub that starts only tries to connect, and is stopped at once.
const url = 'mqtt://127.0.0.1:9';

describe("a hub's durability", () => {
  it.each(['interval', 'relaxed'] as const)("refuses a store it would open in '%s', before opening it", (durability) => {
    const path = join(tempPath(cleanups, 'etb-hub-dur-'), 'store');
    expect(() => startHub({ path, url, durability })).toThrow(`a hub's store must make every write durable before it is read: durability '${durability}' defers the flush (use 'sync' or 'log')`);
    expect(existsSync(path)).toBe(false);
  });

  it.each(['interval', 'relaxed'] as const)("refuses a store given to it in '%s', and leaves it open", (durability) => {
    const db = open({ path: tempPath(cleanups, 'etb-hub-dur-'), durability });
    cleanups.push(() => db.close());
    expect(() => startHub({ db, url })).toThrow(`durability '${durability}' defers the flush`);
    expect(db.listTables({}).TableNames).toEqual([]);
  });

  it.each(['sync', 'log'] as const)("starts on a store in '%s'", async (durability) => {
    const db = open({ path: tempPath(cleanups, 'etb-hub-dur-'), durability });
    cleanups.push(() => db.close());
    const hub = startHub({ db, url });
    await hub.stop();
  });
});
