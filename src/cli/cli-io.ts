/**
 * Where a command writes and what stops it: the process's streams and signals by default, or
 * captured buffers and an AbortSignal in tests. `out` and `err` take whole text (add newlines).
 */
export type CliIo = {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal: progress is a bar redrawn in place there, else periodic lines. */
  readonly errIsTty: boolean;
  /** Long-running commands (serve, sync, hub, bridge) stop when this aborts, as on SIGINT/SIGTERM. */
  readonly signal?: AbortSignal;
  /** Standard input, for `import` without --in (default: process.stdin). */
  readonly stdin?: NodeJS.ReadableStream;
  /** Milliseconds between progress lines when stderr is not a terminal (default 5,000). */
  readonly progressIntervalMs?: number;
};

export function processIo(): CliIo {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    errIsTty: process.stderr.isTTY === true,
  };
}

/** A CLI failure that is not DynamoDB's: printed as `<name>: <message>`, exit code 1. */
export class CliError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** A command's outcome with an exit code of its own (verify --deep: 1 damage found, 2 could not check): printed as `<name>: <message>`. */
export class CommandExit extends Error {
  constructor(
    name: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = name;
  }
}

/**
 * A failure the command has already written (a service's `fatal` JSON log line, service-options.ts):
 * main() writes nothing more and exits with `exitCode`.
 */
export class ReportedFailure extends Error {
  override name = 'ReportedFailure';
  constructor(readonly exitCode: number) {
    super('reported');
  }
}

/** A command line that cannot run as given: printed as `error: <message>`, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
