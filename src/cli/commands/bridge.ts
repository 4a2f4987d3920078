import type { Command } from 'commander';
import { BridgeOptionError, bridgeStatusCommand, runBridgeCommand } from '../../bridge/cli-options.js';
import type { CliIo } from '../cli-io.js';

/** `bridge <path> --udp ... --serial ... --mqtt ...` and `bridge-status <path>`. */
export function registerBridge(program: Command, io: CliIo): void {
  program
    .command('bridge')
    .description('ingest sensor frames from microcontroller nodes (UDP, serial, MQTT) into a table, acknowledging what is durable')
    .argument('<path>', 'store folder')
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
    .action(async (path: string, opts: Record<string, unknown>) => {
      try {
        await runBridgeCommand(path, opts, { ...(io.signal ? { signal: io.signal } : {}), log: (line: string) => io.err(`${line}\n`) });
      } catch (e) {
        if (e instanceof BridgeOptionError) program.error(e.message, { exitCode: 2 });
        throw e;
      }
    });
  program
    .command('bridge-status')
    .description("print a bridge's frame counters (per device: received, written, duplicate, corrupt)")
    .argument('<path>', 'store folder the bridge writes to')
    .action((path: string) => {
      io.out(`${bridgeStatusCommand(path)}\n`);
    });
}
