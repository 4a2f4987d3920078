/** `--version-attribute <table>=<attribute>` of `hub` and `sync` (src/cli/conflict-flags.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { conflictRules } from '../../src/cli/conflict-flags.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('--version-attribute', () => {
  it('names a version rule per table; absent means last-writer-wins everywhere', () => {
    expect(conflictRules({ versionAttribute: ['WorkOrders=version', 'Visits = rev'] })).toEqual({
      WorkOrders: { strategy: 'version', attribute: 'version' },
      Visits: { strategy: 'version', attribute: 'rev' },
    });
    expect(conflictRules({})).toBeUndefined();
  });

  it('refuses a value without a table or an attribute, before connecting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-conflicts-'));
    dirs.push(dir);
    for (const command of ['hub', 'sync']) {
      for (const bad of ['WorkOrders', '=version', 'WorkOrders=']) {
        let err = '';
        const args = [command, '--path', dir, '--url', 'mqtt://127.0.0.1:9', ...(command === 'sync' ? ['--device', 'd-1', '--table', 'T'] : []), '--version-attribute', bad];
        const code = await main(args, { out: () => undefined, err: (t) => void (err += t), errIsTty: false });
        expect({ code, err }).toEqual({ code: 2, err: `error: --version-attribute takes <table>=<attribute>, not ${JSON.stringify(bad)}\n` });
      }
    }
  });
});
