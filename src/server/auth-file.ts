/**
 * The credentials file of `serve --auth-file` and `hub --auth-file`: who may call the API
 * (sigv4.ts). Text, one key a line:
 *
 *   auth-file = *( line LF )
 *   line      = [ key-id 1*WSP secret ] / *WSP "#" comment    ; blank lines and whole-line comments
 *   key-id    = [A-Za-z0-9_.-]{1,128}                          ; what clients give as accessKeyId
 *   secret    = 16..128 visible ASCII characters               ; their secretAccessKey
 *
 * Comments are whole lines only: `#` may occur in a secret. A key id appears once. The secrets
 * sign nothing but let anyone who reads them write the store, so a file that group or others may
 * read or write is refused, as OpenSSH refuses such a private key. A short secret is refused too:
 * one captured request is enough to try guesses offline against its signature.
 */
import { PrivateFileError, readPrivateFile } from './private-file.js';

export class AuthFileError extends Error {
  override name = 'AuthFileError';
}

const KEY_ID = /^[A-Za-z0-9_.-]{1,128}$/;
const SECRET = /^[\x21-\x7e]+$/;
export const MIN_SECRET_CHARS = 16;
const MAX_SECRET_CHARS = 128;

/** Secret access key by access key id, from the text of an auth file; `source` names it in errors. */
export function parseAuthFile(text: string, source = 'auth file'): Record<string, string> {
  const credentials: Record<string, string> = Object.create(null) as Record<string, string>;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${source} line ${i + 1}`;
    const parts = line.split(/\s+/);
    if (parts.length !== 2) throw new AuthFileError(`${where}: expected "<access key id> <secret access key>", found ${parts.length} field${parts.length === 1 ? '' : 's'}`);
    const [keyId, secret] = parts as [string, string];
    if (!KEY_ID.test(keyId)) throw new AuthFileError(`${where}: the access key id must be 1 to 128 of A-Z a-z 0-9 _ . -`);
    if (Object.hasOwn(credentials, keyId)) throw new AuthFileError(`${where}: access key id ${keyId} appears twice`);
    if (!SECRET.test(secret) || secret.length < MIN_SECRET_CHARS || secret.length > MAX_SECRET_CHARS) {
      throw new AuthFileError(`${where}: the secret of ${keyId} must be ${MIN_SECRET_CHARS} to ${MAX_SECRET_CHARS} visible ASCII characters`);
    }
    credentials[keyId] = secret;
  });
  if (Object.keys(credentials).length === 0) throw new AuthFileError(`${source} holds no credentials: every request would be refused`);
  return credentials;
}

/** Reads, checks the mode of (private-file.ts), and parses an auth file. */
export function loadAuthFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readPrivateFile(path);
  } catch (e) {
    if (e instanceof PrivateFileError) throw new AuthFileError(e.message);
    throw e;
  }
  return parseAuthFile(text, path);
}
