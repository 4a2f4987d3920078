/**
 * The auth file of `serve --auth-file` / `hub --auth-file`: lines of `<access key id> <secret>`,
 * blank lines and whole-line comments; every malformed line named by its number; a file that group
 * or others may access refused.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthFileError, loadAuthFile, parseAuthFile } from '../../src/server/auth-file.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function file(text: string, mode: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'edgetable-auth-'));
  dirs.push(dir);
  const path = join(dir, 'api-keys');
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

describe('parseAuthFile', () => {
  it('reads key ids and secrets, skipping blank lines and comments, with CRLF or LF', () => {
    const text = `# the gateway's apps\r\n\r\nAKIDAPP1 ${SECRET}\r\n   # indented comment\n  AKID.app-2_x\t${SECRET}#with#hashes  \n`;
    expect({ ...parseAuthFile(text) }).toEqual({ AKIDAPP1: SECRET, 'AKID.app-2_x': `${SECRET}#with#hashes` });
  });

  it('does not let a key id named like an Object property stand for a missing key', () => {
    expect(Object.hasOwn(parseAuthFile(`AKID1 ${SECRET}\n`), 'constructor')).toBe(false);
  });

  it.each([
    ['one field', `# keys\nAKID1\n`, 'keys line 2: expected "<access key id> <secret access key>", found 1 field'],
    ['three fields', `AKID1 ${SECRET} extra\n`, 'keys line 1: expected "<access key id> <secret access key>", found 3 fields'],
    ['a key id with a slash', `AKID/1 ${SECRET}\n`, 'keys line 1: the access key id must be 1 to 128 of A-Z a-z 0-9 _ . -'],
    ['a key id twice', `AKID1 ${SECRET}\n\nAKID1 ${SECRET}x\n`, 'keys line 3: access key id AKID1 appears twice'],
    ['a short secret', `AKID1 short-secret\n`, 'keys line 1: the secret of AKID1 must be 16 to 128 visible ASCII characters'],
    ['a secret with a non-ASCII character', `AKID1 ${SECRET}é\n`, 'keys line 1: the secret of AKID1 must be 16 to 128 visible ASCII characters'],
    ['only comments', '# nothing yet\n\n', 'keys holds no credentials: every request would be refused'],
  ])('%s is refused, naming the line', (_, text, message) => {
    expect(() => parseAuthFile(text, 'keys')).toThrow(new AuthFileError(message));
  });
});

describe('loadAuthFile', () => {
  it('loads a file only its owner may access (0600, 0400)', () => {
    for (const mode of [0o600, 0o400]) expect({ ...loadAuthFile(file(`AKID1 ${SECRET}\n`, mode)) }).toEqual({ AKID1: SECRET });
  });

  it.each([0o644, 0o640, 0o604, 0o620, 0o660])('refuses a file of mode %s, which group or others may access, saying how to fix it', (mode) => {
    const path = file(`AKID1 ${SECRET}\n`, mode);
    const octal = mode.toString(8).padStart(4, '0');
    expect(() => loadAuthFile(path)).toThrow(new AuthFileError(`${path} holds secrets but group or others may access it (mode ${octal}): chmod 600 ${path}, owned by the user the service runs as`));
  });

  it('a missing file is an AuthFileError naming it', () => {
    expect(() => loadAuthFile('/nonexistent/api-keys')).toThrow(/^cannot read \/nonexistent\/api-keys: ENOENT/);
  });

  it('names the file in a malformed line', () => {
    const path = file(`AKID1 ${SECRET}\nAKID2\n`, 0o600);
    expect(() => loadAuthFile(path)).toThrow(`${path} line 2: expected "<access key id> <secret access key>", found 1 field`);
  });
});
