import type { Durability } from '../../storage/store-options.js';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { HubOptions, HubStatus } from '../../hub/start-hub.js';
import { createDeviceAccess, devicePattern, parseDevicePatterns, type SubscriptionPermissions, type WriteGrants } from '../../hub/device-access.js';
import type { ForwardOptions } from '../../hub/forward/start-forwarder.js';
import { port, positiveInteger } from '../arguments.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-io.js';
import { watchLink } from '../link-watch.js';
import { addMqttFlags, mqttConnectionOptions, type MqttFlags } from '../mqtt-flags.js';
import { readSecret } from '../secret-flags.js';
import { addConflictFlags, conflictRules, type ConflictFlags } from '../conflict-flags.js';
import { stopRequested } from '../stop-requested.js';
import { addPathOption, type PathOption } from '../store-option.js';
import { log } from '../../log/logger.js';
import { isValidNamespace } from '../../sync/protocol/topics.js';
import { addDurabilityOption, addServiceOptions, announce, linkLogger, serveMetrics, withLogging, type ServiceFlags } from '../service-options.js';
import { addApiAuthOptions, apiAuth, isLoopbackHost, type ApiAuthFlags } from '../api-auth.js';
import { addRequestLimitFlags, requestLimits, type RequestLimitFlags } from '../request-limit-flags.js';

type HubFlags = MqttFlags &
  ConflictFlags &
  ApiAuthFlags &
  RequestLimitFlags &
  PathOption &
  ServiceFlags & {
    url: string;
    durability: Durability;
    shareGroup?: string;
    mode?: string;
    versionHorizonDays?: string;
    port?: number;
    host: string;
    forwardEndpoint?: string;
    forwardRegion: string;
    forwardAccessKeyId?: string;
    forwardSecretAccessKey?: string;
    forwardSecretAccessKeyFile?: string;
    forwardTables?: string;
    forwardBatchSize?: number;
    forwardWriteMode: string;
    logMaxRecords?: number;
    deadLetterMaxItems?: number;
    deadLetterRetentionDays?: string;
    namespace?: string;
    hubId?: string;
    allowDevices?: string[];
    allowDevicesFile?: string;
    subscriptionsFile?: string;
    writeGrantsFile?: string;
    schemaMaxAgeHours?: string;
    clearSchemas?: boolean;
    device?: string[];
    olderThanDays?: string;
  };

const repeatable = (v: string, acc: string[] = []) => [...acc, v];

/** How often the forwarding counters are checked for a status line in the log. */
const FORWARD_REPORT_MS = 1000;
/** How often the hubs on the namespace are checked for a line in the log. */
const HUBS_REPORT_MS = 250;

/** `hub`: gather devices' tables from MQTT into a store until stopped. */
export function registerHub(program: Command, io: CliIo): void {
  addMqttFlags(
    addRequestLimitFlags(addConflictFlags(addDurabilityOption(addServiceOptions(addApiAuthOptions(addPathOption(program.command('hub')))))), 'the API (with --port)')
      .description("apply devices' synced changes into a store until SIGINT or SIGTERM")
      .requiredOption('--url <url>', 'broker, mqtt://host:port or mqtts://host:port')
      .option('--namespace <prefix>', "topic prefix shared with the devices (default 'edgetable')")
      .option('--hub-id <id>', "writer id of writes made at the hub through its API, in their versions (default 'hub'; keep it stable)")
      .option('--share-group <name>', 'MQTT shared-subscription group, so several hub processes share the load')
      .option('--mode <mode>', 'merged (one table across devices, last writer wins) | per-device', 'merged')
      .option('--version-horizon-days <days>', 'collect last-writer-wins version records older than this (docs/sync.md)', '30')
      .option('--port <n>', 'also serve the DynamoDB and Streams APIs on the hub store on this port (0 picks a free one)', port)
      .option('--host <addr>', 'address the API listens on', '127.0.0.1')
      .option('--forward-endpoint <url>', 'forward the hub tables to this DynamoDB-compatible endpoint (docs/sync.md)')
      .option('--forward-region <region>', 'region of the forward endpoint', 'us-east-1')
      .option('--forward-access-key-id <id>', 'access key for the forward endpoint (default: AWS_ACCESS_KEY_ID and the AWS SDK chain)')
      .option('--forward-secret-access-key-file <file>', 'file holding the secret key for the forward endpoint (mode 600; default: AWS_SECRET_ACCESS_KEY)')
      .option('--forward-secret-access-key <secret>', 'secret key for the forward endpoint: shown by ps, prefer the -file flag or AWS_SECRET_ACCESS_KEY')
      .option('--forward-tables <names>', 'comma-separated hub tables to forward (default: all)')
      .option('--forward-batch-size <n>', 'change records per shard per forwarding step', positiveInteger)
      .option('--forward-write-mode <mode>', 'conditional (version-checked PutItem/DeleteItem) | batch (BatchWriteItem)', 'conditional')
      .option('--log-max-records <n>', "cap of each hub table's change log, in records; past it the oldest go, even unread (counted) (default 1000000)", positiveInteger)
      .option('--dead-letter-max-items <n>', 'cap of the dead-letter table; past it the oldest go (counted) (default 100000)', positiveInteger)
      .option('--dead-letter-retention-days <d>', 'dead letters older than this are deleted (default 30)')
      .option('--allow-devices <patterns>', "only these devices' batches and schemas are applied: comma-separated ids, * = any run of characters (repeatable)", repeatable)
      .option('--allow-devices-file <file>', 'more allowed device patterns, one or more a line, # comments')
      .option('--subscriptions-file <file>', 'JSON {"<device pattern>": {"<table>": ["<partition key>", ...] | "*"}}: what each device may subscribe to')
      .option('--write-grants-file <file>', 'JSON of the same shape: what each device may write (default: its subscriptions; without either, everything)')
      .option('--schema-max-age-hours <h>', 'a retained schema older than this creates no table until its device sends a batch', '24')
      .option('--clear-schemas', 'clear the retained schema messages of --namespace on the broker (of --device patterns, default all), then exit')
      .option('--device <pattern>', 'with --clear-schemas: only these devices (repeatable; * = any run of characters)', repeatable)
      .option('--older-than-days <d>', 'with --clear-schemas: only schemas announced at least this long ago'),
  ).action((flags: HubFlags) => withLogging(io, 'hub', flags, async () => {
    if (flags.namespace !== undefined && !isValidNamespace(flags.namespace)) {
      throw new UsageError(`--namespace must be 1 to 8 levels of 1-64 [a-zA-Z0-9_.-] separated by '/', not ${JSON.stringify(flags.namespace)}`);
    }
    if (flags.clearSchemas) return clearSchemas(io, flags);
    const access = accessOptions(flags);
    const openWrites = openWritesWarning(flags.url, access);
    if (openWrites !== undefined) log('hub').warn({ url: flags.url }, openWrites);
    const maxAgeHours = Number(flags.schemaMaxAgeHours ?? '24');
    if (!(maxAgeHours > 0)) throw new UsageError(`--schema-max-age-hours must be a positive number, not ${flags.schemaMaxAgeHours}`);
    if (flags.mode !== 'merged' && flags.mode !== 'per-device') throw new UsageError(`--mode must be merged or per-device, not ${flags.mode}`);
    const horizonDays = Number(flags.versionHorizonDays ?? '30');
    if (!(horizonDays > 0)) throw new UsageError(`--version-horizon-days must be a positive number, not ${flags.versionHorizonDays}`);
    const forward = forwardOptions(flags);
    const deadLetterDays = Number(flags.deadLetterRetentionDays ?? '30');
    if (!(deadLetterDays > 0)) throw new UsageError(`--dead-letter-retention-days must be a positive number, not ${flags.deadLetterRetentionDays}`);
    const conflicts = conflictRules(flags);
    if (flags.port === undefined && (flags.authFile !== undefined || flags.authRegion !== undefined || flags.allowAnonymous)) {
      throw new UsageError('--auth-file, --auth-region and --allow-anonymous are about the API of --port: give --port too');
    }
    const auth = flags.port === undefined ? undefined : apiAuth(flags, flags.host, 'hub');
    const apiLimits = requestLimits(flags);
    // Loaded here, not at the top: the hub brings mqtt, which no other command needs.
    const { startHub } = await import('../../hub/start-hub.js');
    if (forward) {
      // Refused here, once and clearly, rather than by every request of the running hub.
      const { checkForwardCredentials } = await import('../../hub/forward/start-forwarder.js');
      const missing = await checkForwardCredentials(forward);
      if (missing !== undefined) throw new UsageError(missing);
    }
    const hub = startHub({
      ...(conflicts ? { conflicts } : {}),
      path: flags.path,
      durability: flags.durability,
      url: flags.url,
      mode: flags.mode,
      versionHorizonMs: horizonDays * 86_400_000,
      ...(flags.shareGroup ? { shareGroup: flags.shareGroup } : {}),
      ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
      ...(flags.hubId !== undefined ? { hubId: flags.hubId } : {}),
      ...(flags.port !== undefined ? { port: flags.port, host: flags.host, apiLimits } : {}),
      ...(auth ? { auth } : {}),
      ...(forward ? { forward } : {}),
      ...mqttConnectionOptions(flags, 'hub'),
      ...access,
      schemaMaxAgeMs: maxAgeHours * 3_600_000,
      ...(flags.logMaxRecords !== undefined ? { logMaxRecords: flags.logMaxRecords } : {}),
      ...(flags.deadLetterMaxItems !== undefined ? { deadLetterMaxItems: flags.deadLetterMaxItems } : {}),
      deadLetterRetentionMs: deadLetterDays * 86_400_000,
      onReject: (r) => log('hub').warn({ topic: r.topic, reason: r.reason }, `rejected batch on ${r.topic}: ${r.reason}`),
    });
    try {
      await hub.ready;
    } catch (err) {
      await hub.stop();
      throw new UsageError(`cannot serve the API on ${flags.host}:${flags.port}: ${(err as Error).message}`);
    }
    // Listening for SIGINT/SIGTERM before saying it runs: whoever waits for the line may signal at once.
    const stop = stopRequested(io.signal);
    announce(io, 'hub', { path: flags.path, url: flags.url }, `edgetable hub applying to ${flags.path} from ${flags.url}`);
    const api = hub.status().api;
    if (api) announce(io, 'hub', { api: `http://${api.host}:${api.port}`, sigv4: auth !== undefined }, `edgetable hub serving the DynamoDB API on http://${api.host}:${api.port}${auth ? ' (SigV4 verified)' : ''}`);
    if (forward) announce(io, 'hub', { forward: forward.endpoint }, `edgetable hub forwarding to ${forward.endpoint}`);
    const stopMetrics = await serveMetrics(io, 'hub', flags, { hub });
    const watch = watchLink('hub', flags.url, () => hub.status(), linkLogger('hub'));
    let said = '';
    const report = () => {
      const line = forwardLine(hub.status());
      if (line !== undefined && line !== said) log('hub').info(line);
      said = line ?? said;
    };
    const reporter = forward ? setInterval(report, FORWARD_REPORT_MS) : undefined;
    // The hubs on the namespace, said when they change (a standby hub also logs why, as an error).
    let saidHubs = '';
    const hubsReporter = setInterval(() => {
      const status = hub.status();
      const line = status.role === 'starting' ? saidHubs : hubsLine(status);
      if (line !== saidHubs) log('hub').info({ role: status.role, hubs: status.hubs }, line);
      saidHubs = line;
    }, HUBS_REPORT_MS);
    const reason = await stop;
    log('hub').info({ reason }, `${reason}: stopping hub`);
    clearInterval(reporter);
    clearInterval(hubsReporter);
    watch.stop();
    await stopMetrics();
    if (forward) report();
    await hub.stop();
  }));
}

/**
 * The warning a hub on a broker other devices can reach deserves when it restricts no writes
 * (neither `--subscriptions-file` nor `--write-grants-file`): any device that can publish may write
 * every table (docs/security.md). Undefined on a loopback broker, or with grants.
 */
export function openWritesWarning(url: string, access: Pick<HubOptions, 'subscriptions' | 'writeGrants'>): string | undefined {
  if (access.subscriptions !== undefined || access.writeGrants !== undefined) return undefined;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined; // the link reports a URL it cannot use
  }
  if (isLoopbackHost(host)) return undefined;
  return `no write grants: every device that can publish on ${host} may write, overwrite and create every table of this hub; give --write-grants-file FILE (or --subscriptions-file FILE) (docs/security.md)`;
}

/** `--allow-devices`, `--allow-devices-file`, `--subscriptions-file`, `--write-grants-file`, checked before anything connects. */
function accessOptions(flags: HubFlags): Pick<HubOptions, 'allowDevices' | 'subscriptions' | 'writeGrants'> {
  const patterns = [...(flags.allowDevices ?? []).flatMap(parseDevicePatterns), ...(flags.allowDevicesFile ? parseDevicePatterns(readText(flags.allowDevicesFile, '--allow-devices-file')) : [])];
  const subscriptions = flags.subscriptionsFile ? (readJson(flags.subscriptionsFile, '--subscriptions-file') as SubscriptionPermissions) : undefined;
  const writeGrants = flags.writeGrantsFile ? (readJson(flags.writeGrantsFile, '--write-grants-file') as WriteGrants) : undefined;
  const allowed = flags.allowDevices !== undefined || flags.allowDevicesFile !== undefined;
  const options = { ...(allowed ? { allowDevices: patterns } : {}), ...(subscriptions !== undefined ? { subscriptions } : {}), ...(writeGrants !== undefined ? { writeGrants } : {}) };
  // The hub's own checks, run here so a bad pattern or map is a usage error naming its flag.
  const check = (flag: string, fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      throw new UsageError(`${flag}: ${(err as Error).message}`);
    }
  };
  check('--allow-devices', () => createDeviceAccess({ allowDevices: patterns }));
  if (subscriptions !== undefined) check(`--subscriptions-file ${flags.subscriptionsFile}`, () => createDeviceAccess({ subscriptions }));
  if (writeGrants !== undefined) check(`--write-grants-file ${flags.writeGrantsFile}`, () => createDeviceAccess({ writeGrants }));
  return options;
}

function readJson(file: string, flag: string): unknown {
  const text = readText(file, flag);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag} ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function readText(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(err as Error).message}`);
  }
}

/** `hub --clear-schemas`: publishes empty retained payloads over the matching schema messages. */
async function clearSchemas(io: CliIo, flags: HubFlags): Promise<void> {
  const olderThanDays = flags.olderThanDays === undefined ? 0 : Number(flags.olderThanDays);
  if (!(olderThanDays >= 0)) throw new UsageError(`--older-than-days must be a number of days, not ${flags.olderThanDays}`);
  const devices = flags.device?.flatMap(parseDevicePatterns);
  try {
    devices?.forEach(devicePattern);
  } catch (err) {
    throw new UsageError(`--device: ${(err as Error).message}`);
  }
  // Loaded here, not at the top: it brings mqtt, which no other command needs.
  const { clearRetainedSchemas } = await import('../../hub/clear-schemas.js');
  const cleared = await clearRetainedSchemas({ url: flags.url, ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}), ...mqttConnectionOptions(flags, 'hub'), ...(devices ? { devices } : {}), olderThanMs: olderThanDays * 86_400_000 });
  for (const topic of cleared) io.out(`cleared ${topic}\n`);
  io.out(`${cleared.length} retained schema message${cleared.length === 1 ? '' : 's'} cleared\n`);
}

/** The forwarder's options from the flags (exported for its tests), or undefined without --forward-endpoint. */
export function forwardOptions(flags: Pick<HubFlags, 'forwardEndpoint' | 'forwardRegion' | 'forwardWriteMode' | 'forwardAccessKeyId' | 'forwardSecretAccessKey' | 'forwardSecretAccessKeyFile' | 'forwardTables' | 'forwardBatchSize'>): ForwardOptions | undefined {
  if (flags.forwardEndpoint === undefined) return undefined;
  if (flags.forwardWriteMode !== 'conditional' && flags.forwardWriteMode !== 'batch') {
    throw new UsageError(`--forward-write-mode must be conditional or batch, not ${flags.forwardWriteMode}`);
  }
  const accessKeyId = flags.forwardAccessKeyId ?? process.env['AWS_ACCESS_KEY_ID'];
  const sessionToken = process.env['AWS_SESSION_TOKEN'];
  if ((flags.forwardAccessKeyId === undefined) !== (flags.forwardSecretAccessKey === undefined && flags.forwardSecretAccessKeyFile === undefined)) {
    throw new UsageError('--forward-access-key-id and --forward-secret-access-key-file (or --forward-secret-access-key) go together');
  }
  const secretAccessKey = readSecret({
    flag: '--forward-secret-access-key',
    value: flags.forwardSecretAccessKey,
    fileFlag: '--forward-secret-access-key-file',
    file: flags.forwardSecretAccessKeyFile,
    env: 'AWS_SECRET_ACCESS_KEY',
    component: 'hub',
  });
  const tables = flags.forwardTables?.split(',').map((t) => t.trim()).filter((t) => t !== '');
  return {
    endpoint: flags.forwardEndpoint,
    region: flags.forwardRegion,
    writeMode: flags.forwardWriteMode,
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken && !flags.forwardAccessKeyId ? { sessionToken } : {}) } } : {}),
    ...(tables ? { tables } : {}),
    ...(flags.forwardBatchSize !== undefined ? { batchSize: flags.forwardBatchSize } : {}),
  };
}

/** `forward: 120 forwarded, 0 conditional skips, 3 retries (2 throttled, 5 unprocessed), 0 errors, 1 dead-lettered, lag 0 records (oldest 0 s)` */
export function forwardLine(status: HubStatus): string | undefined {
  const f = status.forward;
  if (!f) return undefined;
  if (f.refused !== undefined) return `forward: not started: ${f.refused}`;
  const mismatched = f.tables.filter((t) => t.state === 'mismatch').map((t) => `; not forwarded: ${t.message}`);
  return (
    `forward: ${f.forwarded} forwarded, ${f.conditionalSkips} conditional skips, ${f.retries} retries ` +
    `(${f.throttled} throttled, ${f.unprocessedItems} unprocessed), ${f.errors} errors, ${f.deadLettered} dead-lettered, ` +
    `lag ${f.lagRecords} records (oldest ${Math.round(f.oldestUnforwardedAgeMs / 1000)} s)` +
    (f.missedRecords > 0 ? `, ${f.missedRecords} pruned unforwarded` : '') +
    (f.lastError ? `; last error: ${f.lastError}` : '') +
    mismatched.join('')
  );
}

/** `hub: standby; hubs on the namespace: 'hub' 9c1e07aa01 pid 4800 on gw-2 standby (this hub), 'hub' 3f2a5b0c11 pid 4711 on gw-1 active` */
export function hubsLine(status: HubStatus): string {
  const hubs = status.hubs.map((h) => `'${h.hubId}' ${h.instance} pid ${h.pid} on ${h.host}${h.shareGroup !== undefined ? ` group ${h.shareGroup}` : ''} ${h.role}${h.self ? ' (this hub)' : ''}`);
  return `hub: ${status.role}; hubs on the namespace: ${hubs.join(', ')}`;
}
