/**
 * Secrets given to a command: a broker password, a forwarding key. A secret in the arguments is
 * readable by every user of the machine (`ps`, /proc/<pid>/cmdline), so each has a file flag
 * (a private file, server/private-file.ts) and an environment variable; the old argument flag
 * still works and warns once at start.
 */
import { PrivateFileError, readPrivateFile } from '../server/private-file.js';
import { log } from '../log/logger.js';
import { UsageError } from './cli-io.js';

export type SecretFlags = {
  /** e.g. '--password' and its value, if given. */
  readonly flag: string;
  readonly value: string | undefined;
  readonly fileFlag: string;
  readonly file: string | undefined;
  /** The environment variable read when neither flag is given. */
  readonly env: string;
  /** The logger component of the warning. */
  readonly component: string;
};

/** The secret from the file, the argument (warned about) or the environment, in that order; undefined when none. */
export function readSecret(flags: SecretFlags, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flags.value !== undefined && flags.file !== undefined) throw new UsageError(`${flags.flag} and ${flags.fileFlag} exclude each other`);
  if (flags.file !== undefined) {
    let text: string;
    try {
      text = readPrivateFile(flags.file);
    } catch (err) {
      if (err instanceof PrivateFileError) throw new UsageError(`${flags.fileFlag}: ${err.message}`);
      throw err;
    }
    const secret = text.replace(/\r?\n$/, ''); // the line end an editor or `echo` adds is not part of it
    if (secret === '') throw new UsageError(`${flags.fileFlag}: ${flags.file} is empty`);
    return secret;
  }
  if (flags.value !== undefined) {
    log(flags.component).warn(
      `${flags.flag} puts the secret on the command line, where ps shows it to every user of this machine: use ${flags.fileFlag} FILE (mode 600) or ${flags.env} instead`,
    );
    return flags.value;
  }
  const fromEnv = env[flags.env];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}
