/**
 * Who may call the DynamoDB API that `serve` and `hub --port` put on a port: `--auth-file FILE`
 * (server/auth-file.ts) turns SigV4 verification on with its keys, `--auth-region` pins the
 * region clients sign for. Without a file the API admits anyone who reaches it, which is what
 * DynamoDB Local does and fine on 127.0.0.1; bound anywhere else it is said at start as a
 * warning, unless `--allow-anonymous` says it is meant.
 */
import type { Command } from 'commander';
import { AuthFileError, loadAuthFile } from '../server/auth-file.js';
import type { SigV4Options } from '../server/sigv4.js';
import { log } from '../log/logger.js';
import { UsageError } from './cli-io.js';

export type ApiAuthFlags = { authFile?: string; authRegion?: string; allowAnonymous?: boolean };

export function addApiAuthOptions(command: Command): Command {
  return command
    .option('--auth-file <file>', 'verify SigV4 signatures: lines of "<access key id> <secret access key>" (# comments); mode 600')
    .option('--auth-region <region>', 'with --auth-file: the one region clients may sign for (default: any)')
    .option('--allow-anonymous', 'serve without --auth-file on a non-loopback address on purpose (no warning)');
}

/**
 * The server's `auth` from the flags, or undefined when anyone is admitted (after warning when
 * `host` is not a loopback address). Every fault in the flags or the file is a UsageError.
 */
export function apiAuth(flags: ApiAuthFlags, host: string, component: string): SigV4Options | undefined {
  if (flags.allowAnonymous && flags.authFile !== undefined) throw new UsageError('--allow-anonymous and --auth-file exclude each other');
  if (flags.authFile === undefined) {
    if (flags.authRegion !== undefined) throw new UsageError('--auth-region needs --auth-file');
    if (!flags.allowAnonymous && !isLoopbackHost(host)) {
      log(component).warn(
        { host },
        `the DynamoDB API on ${host} verifies no signature: anyone who reaches it can read and write every table; ` +
          'give --auth-file FILE, or --allow-anonymous to serve so on purpose',
      );
    }
    return undefined;
  }
  try {
    return { credentials: loadAuthFile(flags.authFile), ...(flags.authRegion !== undefined ? { region: flags.authRegion } : {}) };
  } catch (err) {
    if (err instanceof AuthFileError) throw new UsageError(`--auth-file: ${err.message}`);
    throw err;
  }
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`: addresses only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
