/**
 * The one logger of every long-running part (serve, sync, hub, bridge, the engine's background
 * work): JSON lines, one per event, on stderr by default, through pino (the only importer of pino).
 *
 *   {"level":"error","time":"2026-12-01T05:00:00.000Z","component":"engine","job":"split",
 *    "err":{"type":"StorageError","message":"...","stack":"...","cause":{...}},"msg":"..."}
 *
 * `level` is pino's label (fatal, error, warn, info, debug, trace); `component` names the part
 * that logged (server, engine, sync, hub, bridge). An error goes in `err`, with its cause chain.
 * Nothing is logged per request at `info`: per-request lines are `debug`.
 *
 * Contract: `log(component)` returns a child of the CURRENT root, so call it where you log rather
 * than keeping it in a module constant: `configureLogging` (the CLI, from --log-level or
 * EDGETABLE_LOG_LEVEL) replaces the root. The default root is at EDGETABLE_LOG_LEVEL, else info.
 * This folder imports nothing from the engine, so every layer may log.
 */
import { createRequire } from 'node:module';
import type { DestinationStream, Logger, pino as Pino } from 'pino';

/**
 * pino and its helpers are loaded on the first logger, not at import: an embedded process logs
 * only when a background job or a listener fails, and the package's import is ~15% pino otherwise
 * (27 ms of ~170 in a --cpu-prof of `import('edgetable')`).
 */
let pinoModule: typeof Pino | undefined;
function loadPino(): typeof Pino {
  return (pinoModule ??= (createRequire(import.meta.url)('pino') as { pino: typeof Pino }).pino);
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';
export const LOG_LEVEL_ENV = 'EDGETABLE_LOG_LEVEL';

export type Log = Logger;

/** Where lines go: each write() is one whole JSON line with its newline. */
export type LogSink = { write(line: string): void };

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** EDGETABLE_LOG_LEVEL when it names a level, else info. */
export function levelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const value = env[LOG_LEVEL_ENV];
  return value !== undefined && isLogLevel(value) ? value : DEFAULT_LOG_LEVEL;
}

export function createLogger(level: LogLevel, sink?: LogSink): Log {
  const pino = loadPino();
  const destination: DestinationStream = sink ?? pino.destination({ fd: 2, sync: true });
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

let root: Log | undefined;

/** Replaces the root logger: its level, and its sink (default: stderr). */
export function configureLogging(options: { level?: LogLevel; sink?: LogSink } = {}): void {
  root = createLogger(options.level ?? levelFromEnv(), options.sink);
}

/**
 * Whether the current root writes lines of `level`: a hot path (the server's per-request line)
 * asks this before building a line's fields or a child logger.
 */
export function isLogged(level: Exclude<LogLevel, 'silent'>): boolean {
  root ??= createLogger(levelFromEnv());
  return root.isLevelEnabled(level);
}

/** A logger whose lines carry `component`. */
export function log(component: string): Log {
  root ??= createLogger(levelFromEnv());
  return root.child({ component });
}
