/**
 * A device of the convergence test in its own process: `device-process.ts CONFIG_JSON`, driven by
 * the parent over IPC (child-process.ts). Opens its store folder (creating WorkOrders when
 * missing), starts sync, sends `ready` with its incarnation, then answers:
 *   write { op }      runs the write on the local engine; answers its HLC (the store clock the
 *                     write's change record took: the write and the clock reads before and after
 *                     it run in one write txn, so nothing else commits between them, not even
 *                     the sync agent's commits on a libuv worker), the new image, or noop when
 *                     it logged nothing (a delete of an item this device does not hold)
 *   stop-sync / start-sync, status, flushed { timeoutMs }, close
 * The parent SIGKILLs it at random moments and starts it again on the same folder.
 */
import { open } from '../../../src/edgetable.js';
import { ensureStoreIdentity } from '../../../src/stream/store-identity.js';
import type { SyncHandle, SyncOptions } from '../../../src/sync/sync-options.js';
import type { OperationName } from '../../../src/ops/operations.js';
import type { ClientTls } from './broker.js';
import { sendEvent, serveCalls } from './child-process.js';
import { writeWithClock } from './device-write.js';
import { tableDefinition, writeRequest, type Op } from './workload.js';

export type DeviceConfig = {
  readonly path: string;
  readonly url: string;
  readonly deviceId: string;
  readonly namespace: string;
  readonly table: string;
  /** startSync's `tables`, as given (a plain name, or the two-way object form). */
  readonly tables: readonly unknown[];
  readonly ackTimeoutMs: number;
  /** On the TLS broker: this device's certificate (CN = its device id), key and the CA. */
  readonly tls?: ClientTls;
};

export type { DeviceWriteResult } from './device-write.js';

const config = JSON.parse(process.argv[2]!) as DeviceConfig;
const db = open({ path: config.path });
if (!db.context.catalog.find(config.table)) db.createTable(tableDefinition(config.table));
let sync: SyncHandle | undefined;

const startSync = async () => {
  sync ??= await db.startSync({ url: config.url, namespace: config.namespace, deviceId: config.deviceId, tables: config.tables as SyncOptions['tables'], ackTimeoutMs: config.ackTimeoutMs, ...config.tls });
};
await startSync();

serveCalls(async (cmd, args) => {
  switch (cmd) {
    case 'write': {
      const op = args['op'] as Op;
      const { operation, request } = writeRequest(config.table, op, config.deviceId);
      return writeWithClock(db, operation as OperationName, request);
    }
    case 'stop-sync': {
      const s = sync;
      sync = undefined;
      await s?.stop();
      return null;
    }
    case 'start-sync':
      await startSync();
      return null;
    case 'status':
      return sync?.status() ?? null;
    case 'flushed': {
      if (!sync) throw new Error('sync is stopped');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Number(args['timeoutMs']))));
      const done = await Promise.race([sync.flushed().then(() => true), timeout]);
      clearTimeout(timer);
      return done;
    }
    case 'close':
      await sync?.stop();
      db.close();
      setImmediate(() => process.exit(0));
      return null;
    default:
      throw new Error(`unknown command ${cmd}`);
  }
});
sendEvent('ready', { incarnation: ensureStoreIdentity(db.store) });
