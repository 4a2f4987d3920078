import { SERVICE_CHECK_INTERVAL_MS } from '../../storage/store-options.js';
import type { Command } from 'commander';
import { startServer } from '../../server/start-server.js';
import { port } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { stopRequested } from '../stop-requested.js';
import { storeCommand } from '../store-option.js';
import { withDb } from '../with-db.js';
import { log } from '../../log/logger.js';
import { addDurabilityOption, addLogLevelOption, announce, withLogging, type ServiceFlags } from '../service-options.js';
import type { Durability } from '../../storage/store-options.js';
import { addApiAuthOptions, apiAuth, type ApiAuthFlags } from '../api-auth.js';
import { addRequestLimitFlags, requestLimits, type RequestLimitFlags } from '../request-limit-flags.js';

type ServeOptions = Pick<ServiceFlags, 'logLevel'> & ApiAuthFlags & RequestLimitFlags & { path: string; port: number; host: string; groupCommit: boolean; throttling: boolean; metrics: boolean; durability: Durability };

export function registerServe(program: Command, io: CliIo): void {
  addRequestLimitFlags(
    addApiAuthOptions(addDurabilityOption(addLogLevelOption(storeCommand(program, 'serve'))))
    .description('serve the DynamoDB HTTP API on a store until SIGINT or SIGTERM')
    .option('--port <n>', 'port (0 picks a free one)', port, 8000)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--no-throttling', 'never throttle provisioned tables (usage is still metered), as DynamoDB Local')
    .option('--no-metrics', 'do not answer GET /metrics (prom-client is then never loaded)')
    .option('--no-group-commit', 'commit every write on its own instead of sharing commits among concurrent writes'),
  ).action((options: ServeOptions) => {
      // Before the store opens: bad limits or a bad auth file stop here, with nothing to undo.
      const limits = requestLimits(options);
      return withLogging(io, 'serve', options, async () => {
        const auth = apiAuth(options, options.host, 'serve');
        await withDb(options.path, async (db) => {
          const server = await startServer({ db, port: options.port, host: options.host, ...limits, ...(auth ? { auth } : {}), ...(options.groupCommit ? {} : { groupCommit: false }), ...(options.metrics ? {} : { metrics: false }) });
          // Listening for SIGINT/SIGTERM before saying so: whoever waits for the line may signal at once.
          const stop = stopRequested(io.signal);
          const url = `http://${server.host}:${server.port}`;
          announce(io, 'serve', { path: options.path, url, sigv4: auth !== undefined }, `edgetable serving ${options.path} on ${url}${auth ? ' (SigV4 verified)' : ''}`);
          const reason = await stop;
          log('serve').info({ reason }, `${reason}: closing`);
          await server.close();
        }, { throttling: options.throttling, durability: options.durability, checkIntervalMs: SERVICE_CHECK_INTERVAL_MS });
      });
    });
}
