import type { Command } from 'commander';
import { readSyncStatus } from '../../sync/shard-status.js';
import type { CliIo } from '../cli-io.js';
import { CliError } from '../cli-io.js';
import { addMqttFlags, mqttConnectionOptions, type MqttFlags } from '../mqtt-flags.js';
import { stopRequested } from '../stop-requested.js';
import { withDb } from '../with-db.js';

type SyncFlags = MqttFlags & {
  path: string;
  url: string;
  device: string;
  table: string[];
  budget?: string;
  whenFull?: string;
  compression?: string;
};

/** `sync`: ship tables' changes to a hub until stopped; `sync-status`: per-shard figures. */
export function registerSync(program: Command, io: CliIo): void {
  addMqttFlags(
    program
      .command('sync')
      .description("sync tables' changes to a hub over MQTT until SIGINT or SIGTERM (can run beside another process on the same store)")
      .requiredOption('--path <dir>', 'store folder')
      .requiredOption('--url <url>', 'broker, mqtt://host:port or mqtts://host:port')
      .requiredOption('--device <id>', 'this device id (its topics are edgetable/v1/<id>/...)')
      .requiredOption('--table <name>', 'table to sync, repeatable', (v: string, acc: string[] = []) => [...acc, v])
      .option('--budget <bytes>', 'unacknowledged bytes allowed per shard (0 = unbounded)')
      .option('--when-full <policy>', 'reject | drop-oldest')
      .option('--compression <kind>', 'none | deflate'),
  ).action(async (flags: SyncFlags) => {
    if (flags.whenFull !== undefined && flags.whenFull !== 'reject' && flags.whenFull !== 'drop-oldest') {
      throw new CliError('UsageError', `--when-full must be reject or drop-oldest, not ${flags.whenFull}`);
    }
    if (flags.compression !== undefined && flags.compression !== 'none' && flags.compression !== 'deflate') {
      throw new CliError('UsageError', `--compression must be none or deflate, not ${flags.compression}`);
    }
    const budget = flags.budget === undefined ? undefined : Number(flags.budget);
    if (budget !== undefined && (!Number.isInteger(budget) || budget < 0)) throw new CliError('UsageError', `--budget must be a whole number of bytes`);
    await withDb(flags.path, async (db) => {
      const sync = await db.startSync({
        url: flags.url,
        deviceId: flags.device,
        tables: flags.table,
        ...(budget !== undefined ? { outboxBudgetBytes: budget } : {}),
        ...(flags.whenFull ? { whenFull: flags.whenFull as 'reject' | 'drop-oldest' } : {}),
        ...(flags.compression ? { compression: flags.compression as 'none' | 'deflate' } : {}),
        ...mqttConnectionOptions(flags),
      });
      io.out(`edgetable syncing ${flags.table.join(', ')} from ${flags.path} as ${flags.device} to ${flags.url}\n`);
      const reason = await stopRequested(io.signal);
      io.err(`${reason}: stopping sync\n`);
      await sync.stop();
    });
  });

  program
    .command('sync-status')
    .description('per shard: last sequence, acknowledged sequence, lag in records, bytes and seconds')
    .requiredOption('--path <dir>', 'store folder')
    .option('--table <name>', 'only this table, repeatable', (v: string, acc: string[] = []) => [...acc, v])
    .option('--json', 'print JSON')
    .action(async (flags: { path: string; table?: string[]; json?: boolean }) => {
      const shards = await withDb(flags.path, (db) => readSyncStatus(db, flags.table), { readOnly: true });
      if (flags.json) {
        io.out(`${JSON.stringify(shards, null, 2)}\n`);
        return;
      }
      io.out('table\tshard\tparent\tlastSeq\tackedSeq\tlagRecords\tlagBytes\tlagSeconds\trefused\n');
      for (const s of shards) {
        io.out(`${s.table}\t${s.shard}\t${s.parent ?? '-'}\t${s.lastSeq}\t${s.ackedSeq}\t${s.lagRecords}\t${s.lagBytes}\t${s.lagSeconds.toFixed(1)}\t${s.refused?.records ?? 0}\n`);
      }
      for (const s of shards) {
        if (s.refused) io.out(`${s.table}/${s.shard}: the hub refused ${s.refused.records} records (kept in its dead-letter table); last: ${s.refused.lastMessage}\n`);
      }
      if (shards.length === 0) io.out('(no change-log shards: no table on this store is streamed or synced)\n');
    });
}
