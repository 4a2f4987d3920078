import { SERVICE_CHECK_INTERVAL_MS } from '../../storage/store-options.js';
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-io.js';
import { watchLink } from '../link-watch.js';
import { addConflictFlags, conflictRules, type ConflictFlags } from '../conflict-flags.js';
import { addMqttFlags, mqttConnectionOptions, type MqttFlags } from '../mqtt-flags.js';
import { stopRequested } from '../stop-requested.js';
import { addPathOption, storeCommand, type PathOption } from '../store-option.js';
import { SNAPSHOT_MS, readSyncStatusFile, writeSyncStatusFile, type SyncStatusSnapshot } from '../sync-status-file.js';
import { printJson, withDb } from '../with-db.js';
import { missingTablesError, parseTableFlag, parseTablesJson } from '../sync-tables.js';
import { log } from '../../log/logger.js';
import { watchBaseProgress } from '../base-progress.js';
import { PROGRESS_LINE_INTERVAL_MS } from '../progress.js';
import { addDurabilityOption, addServiceOptions, announce, linkLogger, serveMetrics, withLogging, type ServiceFlags } from '../service-options.js';
import type { Durability } from '../../storage/store-options.js';
import { isAlive } from '../../storage/process-liveness.js';
import type { BaseReadProgress } from '../../replication/base-read-port.js';
import type { Edgetable } from '../../edgetable.js';

type SyncFlags = MqttFlags &
  ConflictFlags &
  PathOption &
  ServiceFlags & {
    durability: Durability;
    url: string;
    device: string;
    table?: string[];
    tables?: string;
    namespace?: string;
    budget?: string;
    whenFull?: string;
    compression?: string;
    versionHorizonDays?: string;
  };

/** `sync`: ship tables' changes to a hub until stopped; `sync-status`: connection and per-shard figures. */
export function registerSync(program: Command, io: CliIo): void {
  addMqttFlags(
    addConflictFlags(addDurabilityOption(addServiceOptions(addPathOption(program.command('sync')))))
      .description("sync tables' changes to a hub over MQTT until SIGINT or SIGTERM (can run beside another process on the same store)")
      .requiredOption('--url <url>', 'broker, mqtt://host:port or mqtts://host:port')
      .requiredOption('--device <id>', 'this device id (its topics are edgetable/v1/<id>/...)')
      .option('--table <spec>', 'table to sync, repeatable: Name (up), Name:up|down|both, or Name:down|both:key1,key2 (partition keys received)', (v: string, acc: string[] = []) => [...acc, v])
      .option('--tables <json>', 'tables as JSON: ["Readings", {"name": "WorkOrders", "direction": "both", "partitionKeys": ["site-7"], "conflict": {"strategy": "version", "attribute": "version"}}]')
      .option('--namespace <prefix>', "topic prefix shared with the hub (default 'edgetable')")
      .option('--budget <bytes>', 'unacknowledged bytes allowed per shard (0 = unbounded)')
      .option('--when-full <policy>', 'reject | drop-oldest')
      .option('--compression <kind>', 'none | deflate')
      .option('--version-horizon-days <days>', "collect received tables' tombstones older than this; at least the hub's (docs/sync.md)", '30'),
  ).action((flags: SyncFlags) => withLogging(io, 'sync', flags, async () => {
    if (flags.whenFull !== undefined && flags.whenFull !== 'reject' && flags.whenFull !== 'drop-oldest') {
      throw new UsageError(`--when-full must be reject or drop-oldest, not ${flags.whenFull}`);
    }
    if (flags.compression !== undefined && flags.compression !== 'none' && flags.compression !== 'deflate') {
      throw new UsageError(`--compression must be none or deflate, not ${flags.compression}`);
    }
    const budget = flags.budget === undefined ? undefined : Number(flags.budget);
    if (budget !== undefined && (!Number.isInteger(budget) || budget < 0)) throw new UsageError(`--budget must be a whole number of bytes`);
    const horizonDays = Number(flags.versionHorizonDays ?? '30');
    if (!(horizonDays > 0)) throw new UsageError(`--version-horizon-days must be a positive number, not ${flags.versionHorizonDays}`);
    const tables = [...(flags.table ?? []).map(parseTableFlag), ...(flags.tables !== undefined ? parseTablesJson(flags.tables) : [])];
    if (tables.length === 0) throw new UsageError('sync needs --table (repeatable) or --tables');
    const tableNames = tables.map((t) => (typeof t === 'string' ? t : t.name));
    const rules = conflictRules(flags);
    const connection = mqttConnectionOptions(flags, 'sync'); // a refused password file opens no store
    await withDb(flags.path, async (db) => {
      const missing = missingTablesError(tables, (name) => db.replica.table(name) !== undefined, flags.path, db.replica.tables().map((t) => t.name));
      if (missing !== undefined) throw missing;
      const sync = await db.startSync({
        ...(rules ? { conflicts: rules } : {}),
        url: flags.url,
        deviceId: flags.device,
        tables,
        ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
        ...(budget !== undefined ? { outboxBudgetBytes: budget } : {}),
        ...(flags.whenFull ? { whenFull: flags.whenFull as 'reject' | 'drop-oldest' } : {}),
        ...(flags.compression ? { compression: flags.compression as 'none' | 'deflate' } : {}),
        versionHorizonMs: horizonDays * 86_400_000,
        ...connection,
      });
      // Listening for SIGINT/SIGTERM before saying it runs: whoever waits for the line may signal at once.
      const stop = stopRequested(io.signal);
      announce(io, 'sync', { tables: tableNames, path: flags.path, device: flags.device, url: flags.url }, `edgetable syncing ${tableNames.join(', ')} from ${flags.path} as ${flags.device} to ${flags.url}`);
      const snapshot = (running: boolean): SyncStatusSnapshot => {
        const s = sync.status();
        const conflicts = s.tables.flatMap((t) => (t.conflict !== undefined ? [{ table: t.table, conflict: t.conflict }] : []));
        return {
          format: 1,
          pid: process.pid,
          running,
          deviceId: flags.device,
          url: flags.url,
          tables: tableNames,
          online: running && s.online,
          since: watch.since,
          ...(s.lastError !== undefined ? { lastError: s.lastError } : {}),
          batchesSent: s.batchesSent,
          recordsAcked: s.recordsAcked,
          ...(s.rejectedWrites > 0 ? { rejectedWrites: s.rejectedWrites, lastRejections: s.lastRejections } : {}),
          updatedAt: Date.now(),
          ...(conflicts.length > 0 ? { conflicts } : {}),
        };
      };
      const save = (running: boolean): void => writeSyncStatusFile(db.store.path, snapshot(running));
      const stopMetrics = await serveMetrics(io, 'sync', flags, { db, sync });
      const watch = watchLink('sync', flags.url, () => sync.status(), linkLogger('sync'), () => save(true));
      const baseProgress = watchBaseProgress(() => sync.status(), io.progressIntervalMs ?? PROGRESS_LINE_INTERVAL_MS, (line, fields) => log('sync').info(fields, line));
      save(true);
      const periodic = setInterval(() => save(true), SNAPSHOT_MS);
      const reason = await stop;
      log('sync').info({ reason }, `${reason}: stopping sync`);
      clearInterval(periodic);
      watch.stop();
      baseProgress.stop();
      await stopMetrics();
      await sync.stop();
      save(false);
    }, { durability: flags.durability, checkIntervalMs: SERVICE_CHECK_INTERVAL_MS });
  }));

  storeCommand(program, 'sync-status')
    .description('the running sync: broker connection and last error; per shard: last and acknowledged sequence, lag in records, bytes and seconds')
    .option('--table <name>', 'only this table, repeatable', (v: string, acc: string[] = []) => [...acc, v])
    .option('--json', 'print {"connection": ..., "shards": [...]}')
    .action(async (flags: PathOption & { table?: string[]; json?: boolean }) => {
      const { shards, bases } = await withDb(flags.path, (db) => ({ shards: db.replica.syncStatus(flags.table), bases: readBaseReads(db, flags.table) }), { readOnly: true });
      const file = readSyncStatusFile(flags.path);
      const connection = file === undefined ? undefined : { ...file, running: file.running && isAlive(file.pid) };
      if (flags.json) return printJson(io.out, { connection: connection ?? null, shards, baseReads: bases });
      io.out(`${connectionLine(connection)}\n`);
      io.out('table\tshard\tparent\tlastSeq\tackedSeq\tlagRecords\tlagBytes\tlagSeconds\n');
      for (const s of shards) {
        io.out(`${s.table}\t${s.shard}\t${s.parent ?? '-'}\t${s.lastSeq}\t${s.ackedSeq}\t${s.lagRecords}\t${s.lagBytes}\t${s.lagSeconds.toFixed(1)}\n`);
      }
      for (const s of shards) {
        if (s.refused) io.out(`${s.table}/${s.shard}: the hub refused ${s.refused.records} records (kept in its dead-letter table); last: ${s.refused.lastMessage}\n`);
      }
      for (const r of connection?.lastRejections ?? []) {
        io.out(`${r.table} ${JSON.stringify(r.keys)}: the hub refused this device's write (${r.reason})${r.restored ? "; the local copy is the hub's again" : ''}\n`);
      }
      if (shards.length === 0) io.out('(no change-log shards: nothing is logged on this store yet)\n');
      for (const b of bases) {
        io.out(`${b.table}: first sync's base read ${b.done ? 'done' : 'running'}, ${b.acked}/${b.total} items acknowledged\n`);
      }
      for (const c of connection?.conflicts ?? []) io.out(`${c.table}: not sent, its definition conflicts with the hub's: ${c.conflict}\n`);
    });
}

/** The first-sync base reads (docs/sync.md) of `tables` (default: every table), done or not. */
function readBaseReads(db: Edgetable, tables?: readonly string[]): ({ table: string } & BaseReadProgress)[] {
  const port = db.replica.baseReads();
  return (tables ?? db.replica.tables().map((t) => t.name)).flatMap((table) => {
    const progress = port.progress(table);
    return progress ? [{ table, ...progress }] : [];
  });
}

function connectionLine(c: SyncStatusSnapshot | undefined): string {
  if (c === undefined) return 'sync: no sync has run on this store';
  const at = (ms: number) => new Date(ms).toISOString();
  const error = c.lastError === undefined ? 'none' : c.lastError;
  if (!c.running) return `sync: not running (pid ${c.pid}, last snapshot ${at(c.updatedAt)}); last error: ${error}`;
  return `sync: pid ${c.pid} as ${c.deviceId} to ${c.url}: ${c.online ? 'connected' : 'NOT connected'} since ${at(c.since)}; last error: ${error}; ${c.batchesSent} batches sent, ${c.recordsAcked} records acknowledged${c.rejectedWrites ? `, ${c.rejectedWrites} writes refused by the hub` : ''}`;
}
