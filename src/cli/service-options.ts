/**
 * The options every long-running command shares (serve, sync, hub, bridge): `--log-level` (or
 * EDGETABLE_LOG_LEVEL; default info: nothing per request) for the one structured logger
 * (log/logger.ts), whose JSON lines go to the command's stderr; and, except on serve, which
 * answers /metrics on its own port, `--metrics-port` / `--metrics-host` for a Prometheus listener.
 */
import { Option, type Command } from 'commander';
import { configureLogging, log, DEFAULT_LOG_LEVEL, LOG_LEVEL_ENV, LOG_LEVELS, type LogLevel } from '../log/logger.js';
import type { MetricSources } from '../metrics/metrics.js';
import { port } from './arguments.js';
import type { CliIo } from './cli-io.js';

export type ServiceFlags = { logLevel: LogLevel; metricsPort?: number; metricsHost: string };

export function addLogLevelOption(command: Command): Command {
  return command.addOption(
    new Option('--log-level <level>', 'least severe log line written (JSON lines on stderr)').choices(LOG_LEVELS).env(LOG_LEVEL_ENV).default(DEFAULT_LOG_LEVEL),
  );
}

/** `--durability`: how the store makes a write durable (storage/store-options.ts; with 'log' another writing process is handed the folder, storage/redo-handover.ts). */
export function addDurabilityOption(command: Command): Command {
  return command.addOption(
    new Option('--durability <mode>', "sync: LMDB's durable commit (two flushes); log: the redo log (one flush per commit; another process that writes the folder is handed it meanwhile); relaxed: the meta page flushed within a second").choices(['sync', 'log', 'relaxed']).default('sync'),
  );
}

export function addServiceOptions(command: Command): Command {
  return addLogLevelOption(command)
    .option('--metrics-port <n>', 'serve Prometheus metrics at GET /metrics on this port (0 picks a free one)', port)
    .option('--metrics-host <addr>', 'address the metrics listener binds', '127.0.0.1');
}

/**
 * Runs `body` with the logger writing to `io.err` at `flags.logLevel`, and puts the default
 * logger back afterwards (the CLI runs in-process in tests).
 */
export async function withLogging<T>(io: CliIo, flags: { logLevel: LogLevel }, body: () => Promise<T>): Promise<T> {
  configureLogging({ level: flags.logLevel, sink: { write: (line) => io.err(line) } });
  try {
    return await body();
  } finally {
    configureLogging();
  }
}

/**
 * Starts the metrics listener when --metrics-port was given, saying where on stdout; returns
 * what stops it.
 */
export async function serveMetrics(io: CliIo, flags: ServiceFlags, sources: MetricSources): Promise<() => Promise<void>> {
  if (flags.metricsPort === undefined) return async () => undefined;
  // Loaded only with --metrics-port: prom-client stays out of a process that serves no metrics.
  const [{ createMetrics }, { startMetricsServer }] = await Promise.all([import('../metrics/metrics.js'), import('../server/metrics-server.js')]);
  const server = await startMetricsServer(createMetrics(sources), flags.metricsPort, flags.metricsHost);
  io.out(`metrics on http://${server.host}:${server.port}/metrics\n`);
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
