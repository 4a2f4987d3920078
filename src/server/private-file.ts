/**
 * Files that hold secrets (an auth file, a broker password, a forwarding key): readable only by
 * the user the service runs as. One that group or others may read or write is refused, as OpenSSH
 * refuses such a private key: whoever reads it holds the secret, whoever writes it chooses it.
 */
import { readFileSync, statSync } from 'node:fs';

export class PrivateFileError extends Error {
  override name = 'PrivateFileError';
}

/** The text of `path` once its mode is checked. */
export function readPrivateFile(path: string): string {
  let text: string;
  let mode: number;
  try {
    mode = statSync(path).mode;
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new PrivateFileError(`cannot read ${path}: ${(e as Error).message}`);
  }
  // POSIX modes only: on Windows access is an ACL matter that stat does not show.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    throw new PrivateFileError(`${path} holds secrets but group or others may access it (mode ${octal}): chmod 600 ${path}, owned by the user the service runs as`);
  }
  return text;
}
