import type { Command } from 'commander';
import { readBridgeStatus } from '../../bridge/bridge-status.js';
import { BridgeOptionError, bridgeStatusCommand, runBridgeCommand } from '../../bridge/cli-options.js';
import type { CliIo } from '../cli-io.js';
import { CliError, UsageError } from '../cli-io.js';
import { storeCommand, type PathOption } from '../store-option.js';
import { printJson, withDb } from '../with-db.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { log } from '../../log/logger.js';
import { addDurabilityOption, addServiceOptions, serveMetrics, withLogging, type ServiceFlags } from '../service-options.js';
import type { Durability } from '../../storage/store-options.js';

/** `bridge --udp ... --serial ... --mqtt ...` and `bridge-status`, on the store at --path. */
export function registerBridge(program: Command, io: CliIo): void {
  addDurabilityOption(addServiceOptions(storeCommand(program, 'bridge')))
    .description('ingest sensor frames from microcontroller nodes (UDP, serial, MQTT) into a table, acknowledging what is durable')
    .option('--udp [host:port]', 'listen on UDP (default port 5780)')
    .option('--serial <path[:baud]>', 'serial port, repeatable', (v: string, acc: string[] = []) => [...acc, v])
    .option('--serial-driver <driver>', 'serialport | tty')
    .option('--mqtt <url>', 'MQTT broker carrying frames')
    .option('--mqtt-topic <filter>', 'frame topic filter')
    .option('--table <name>', 'readings table', 'Readings')
    .option('--no-create-table', 'fail if the table is absent')
    .option('--ttl-attribute <name>', 'attribute holding the expiry time (epoch seconds)')
    .option('--ttl-seconds <n>', 'retention of each reading')
    .option('--batch-max-items <n>', 'readings per durable batch')
    .option('--batch-max-delay-ms <n>', 'longest wait to fill a batch')
    .option('--keys <file>', 'per-node MAC keys: lines of "<device-id> <hex key>" (docs/bridge.md)')
    .option('--allow-unauthenticated', 'take frames of nodes without a key (no MAC checked)')
    .option('--max-boot-ahead-hours <h>', "refuse a boot id further ahead of this machine's clock, read as seconds (default 24)")
    .action((opts: PathOption & ServiceFlags & Record<string, unknown>) =>
      withLogging(io, 'bridge', opts, async () => {
        const { path, logLevel, metricsPort, metricsHost, durability, ...raw } = opts;
        try {
          await runBridgeCommand(path, raw, {
            durability: durability as Durability,
            ...(io.signal ? { signal: io.signal } : {}),
            log: (line: string) => log('bridge').info(line),
            started: (bridge, db) => serveMetrics(io, 'bridge', opts, { db, bridge }),
          });
        } catch (e) {
          if (e instanceof BridgeOptionError) throw new UsageError(e.message);
          throw e;
        }
      }),
    );
  storeCommand(program, 'bridge-forget')
    .description("forget a node's dedup state (its boot and seqs), so its next frame of any boot is taken; with no bridge running")
    .argument('<device-id>', 'the node')
    .option('--table <name>', 'readings table', 'Readings')
    .action(async (deviceId: string, options: PathOption & { table: string }) => {
      const { forgetNode, ForgetNodeError } = await import('../../bridge/forget-node.js');
      if (!existsSync(join(options.path, 'data.mdb'))) throw new CliError('ForgetNodeError', `${options.path} holds no store`);
      await withDb(options.path, (db) => {
        let state;
        try {
          state = forgetNode(db, options.path, deviceId, options.table);
        } catch (e) {
          if (e instanceof ForgetNodeError) throw new CliError('ForgetNodeError', e.message);
          throw e;
        }
        io.out(state === undefined ? `no state kept for ${deviceId} of ${options.table}\n` : `forgot ${deviceId} of ${options.table} (boot ${state.boot}, acknowledged up to seq ${state.settled}): its next frame starts a new stream\n`);
      });
    });

  storeCommand(program, 'bridge-status')
    .description("print a bridge's frame counters (per device: received, written, duplicate, corrupt)")
    .option('--json', 'print the status snapshot as JSON (null when no bridge has run)')
    .action((options: PathOption & { json?: boolean }) => {
      if (options.json) printJson(io.out, readBridgeStatus(options.path) ?? null);
      else io.out(`${bridgeStatusCommand(options.path)}\n`);
    });
}
