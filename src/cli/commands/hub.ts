import type { Command } from 'commander';
import { startHub } from '../../hub/start-hub.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-io.js';
import { watchLink } from '../link-watch.js';
import { addMqttFlags, mqttConnectionOptions, type MqttFlags } from '../mqtt-flags.js';
import { stopRequested } from '../stop-requested.js';
import { addPathOption, type PathOption } from '../store-option.js';

type HubFlags = MqttFlags & PathOption & { url: string; shareGroup?: string; mode?: string; versionHorizonDays?: string };

/** `hub`: gather devices' tables from MQTT into a store until stopped. */
export function registerHub(program: Command, io: CliIo): void {
  addMqttFlags(
    addPathOption(program.command('hub'))
      .description("apply devices' synced changes into a store until SIGINT or SIGTERM")
      .requiredOption('--url <url>', 'broker, mqtt://host:port or mqtts://host:port')
      .option('--share-group <name>', 'MQTT shared-subscription group, so several hub processes share the load')
      .option('--mode <mode>', 'merged (one table across devices, last writer wins) | per-device', 'merged')
      .option('--version-horizon-days <days>', 'collect last-writer-wins version records older than this (docs/sync.md)', '30'),
  ).action(async (flags: HubFlags) => {
    if (flags.mode !== 'merged' && flags.mode !== 'per-device') throw new UsageError(`--mode must be merged or per-device, not ${flags.mode}`);
    const horizonDays = Number(flags.versionHorizonDays ?? '30');
    if (!(horizonDays > 0)) throw new UsageError(`--version-horizon-days must be a positive number, not ${flags.versionHorizonDays}`);
    const hub = startHub({
      path: flags.path,
      url: flags.url,
      mode: flags.mode,
      versionHorizonMs: horizonDays * 86_400_000,
      ...(flags.shareGroup ? { shareGroup: flags.shareGroup } : {}),
      ...mqttConnectionOptions(flags),
      onReject: (r) => io.err(`rejected batch on ${r.topic}: ${r.reason}\n`),
    });
    io.out(`edgetable hub applying to ${flags.path} from ${flags.url}\n`);
    const watch = watchLink('hub', flags.url, () => hub.status(), (line) => io.err(`${line}\n`));
    const reason = await stopRequested(io.signal);
    io.err(`${reason}: stopping hub\n`);
    watch.stop();
    await hub.stop();
  });
}
