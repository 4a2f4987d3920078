/** `edgetable hub` flags of the hub's bounds (docs/sync.md, "Version horizon"). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('edgetable hub', () => {
  it('refuses a version horizon that is not a positive number of days, before connecting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgetable-cli-hub-'));
    dirs.push(dir);
    for (const bad of ['0', '-3', 'soon']) {
      let err = '';
      const code = await main(['hub', '--path', dir, '--url', 'mqtt://127.0.0.1:9', '--version-horizon-days', bad], { out: () => undefined, err: (t) => void (err += t), errIsTty: false });
      expect({ code, err }).toEqual({ code: 2, err: `error: --version-horizon-days must be a positive number, not ${bad}\n` });
    }
  });
});
