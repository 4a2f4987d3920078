/**
 * Where a command writes and what stops it: the process's streams and signals by default, or
 * captured buffers and an AbortSignal in tests. `out` and `err` take whole text (add newlines).
 */
export type CliIo = {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress lines are only drawn there). */
  readonly errIsTty: boolean;
  /** Long-running commands (serve) stop when this aborts, as on SIGINT/SIGTERM. */
  readonly signal?: AbortSignal;
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
