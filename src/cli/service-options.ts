/**
 * The options every long-running command shares (serve, sync, hub, bridge): `--log-level` (or
 * EDGETABLE_LOG_LEVEL; default info: nothing per request) for the one structured logger
 * (log/logger.ts), whose JSON lines go to the command's stderr; and, except on serve, which
 * answers /metrics on its own port, `--metrics-port` / `--metrics-host` for a Prometheus listener.
 *
 * Every line a running service writes is JSON, so a unit's journal reads with
 * `journalctl -u ... -o cat | jq .`: its ready lines on stdout (announce) and its log lines, Node's
 * warnings and its final failure on stderr (withLogging). A usage error (exit 2: the service never started) stays
 * the CLI's one plain line `error: <message>`.
 */
import { Option, type Command } from 'commander';
import { configureLogging, createLogger, log, DEFAULT_LOG_LEVEL, LOG_LEVEL_ENV, LOG_LEVELS, type LogLevel } from '../log/logger.js';
import type { MetricSources } from '../metrics/metrics.js';
import { port } from './arguments.js';
import { CommandExit, ReportedFailure, UsageError, type CliIo } from './cli-io.js';

/** The name of a log line's `component` for each service. */
export type ServiceName = 'serve' | 'sync' | 'hub' | 'bridge';

export type ServiceFlags = { logLevel: LogLevel; metricsPort?: number; metricsHost: string };

export function addLogLevelOption(command: Command): Command {
  return command.addOption(
    new Option('--log-level <level>', 'least severe log line written (JSON lines on stderr)').choices(LOG_LEVELS).env(LOG_LEVEL_ENV).default(DEFAULT_LOG_LEVEL),
  );
}

/** `--durability`: how the store makes a write durable (storage/store-options.ts; with 'log' and 'interval' another writing process is handed the folder, storage/redo-handover.ts). */
export function addDurabilityOption(command: Command): Command {
  return command.addOption(
    new Option('--durability <mode>', "sync: LMDB's durable commit (two flushes); log: the redo log (one flush per commit; another process that writes the folder is handed it meanwhile); interval: the redo log flushed within a second (a power cut loses at most that second's writes); relaxed: the meta page flushed within a second").choices(['sync', 'log', 'interval', 'relaxed']).default('sync'),
  );
}

export function addServiceOptions(command: Command): Command {
  return addLogLevelOption(command)
    .option('--metrics-port <n>', 'serve Prometheus metrics at GET /metrics on this port (0 picks a free one)', port)
    .option('--metrics-host <addr>', 'address the metrics listener binds', '127.0.0.1');
}

/**
 * Runs `body` with the logger writing to `io.err` at `flags.logLevel`, and puts the default
 * logger back afterwards (the CLI runs in-process in tests). A failure other than a usage error
 * is written as one `fatal` line of `service` (with `err`: type, message, stack, cause) and
 * rethrown as a ReportedFailure with the exit code main() would have given it.
 */
export async function withLogging<T>(io: CliIo, service: ServiceName, flags: { logLevel: LogLevel }, body: () => Promise<T>): Promise<T> {
  configureLogging({ level: flags.logLevel, sink: { write: (line) => io.err(line) } });
  const restoreWarnings = logWarnings(service);
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError || !(error instanceof Error)) throw error;
    log(service).fatal({ err: error }, `${error.name}: ${error.message.split('\n', 1)[0]}`);
    throw new ReportedFailure(error instanceof CommandExit ? error.exitCode : 1);
  } finally {
    restoreWarnings();
    configureLogging();
  }
}

/**
 * Node's own warnings (a deprecation, an experimental feature, the AWS SDK's notice of the Node
 * versions it will need), which Node prints as plain text on stderr, as `warn` lines of
 * `service` while it runs: Node's printer is a 'warning' listener, replaced here and put back by
 * the function returned.
 */
function logWarnings(service: ServiceName): () => void {
  const previous = process.listeners('warning');
  const onWarning = (warning: Error & { code?: string }): void => {
    log(service).warn({ warning: { name: warning.name, ...(warning.code !== undefined ? { code: warning.code } : {}) } }, `${warning.name}: ${warning.message}`);
  };
  process.removeAllListeners('warning');
  process.on('warning', onWarning);
  return () => {
    process.off('warning', onWarning);
    for (const listener of previous) process.on('warning', listener);
  };
}

/**
 * A service's ready line on stdout (`edgetable serving ./data on http://127.0.0.1:8000`): a JSON
 * line of the logger's shape at info, its facts also as fields. Written whatever --log-level
 * says: supervisors and scripts wait for it to know the service is up.
 */
export function announce(io: CliIo, service: ServiceName, fields: Record<string, unknown>, msg: string): void {
  createLogger('info', { write: (line) => io.out(line) }).child({ component: service }).info(fields, msg);
}

/**
 * Starts the metrics listener when --metrics-port was given, saying where on stdout; returns
 * what stops it.
 */
export async function serveMetrics(io: CliIo, service: ServiceName, flags: ServiceFlags, sources: MetricSources): Promise<() => Promise<void>> {
  if (flags.metricsPort === undefined) return async () => undefined;
  // Loaded only with --metrics-port: prom-client stays out of a process that serves no metrics.
  const [{ createMetrics }, { startMetricsServer }] = await Promise.all([import('../metrics/metrics.js'), import('../server/metrics-server.js')]);
  const server = await startMetricsServer(createMetrics(sources), flags.metricsPort, flags.metricsHost);
  const url = `http://${server.host}:${server.port}/metrics`;
  announce(io, service, { metrics: url }, `metrics on ${url}`);
  return () => server.close();
}

/**
 * A link watcher's lines (cli/link-watch.ts) as log lines of `component`: losing or not reaching
 * the broker is a warning (with the error text), connecting is info.
 */
export function linkLogger(component: string): (line: string) => void {
  return (line) => {
    if (line.includes(': connected to the broker')) log(component).info(line);
    else log(component).warn(line);
  };
}
