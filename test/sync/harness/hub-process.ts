/**
 * The hub of the convergence test in its own process: `hub-process.ts CONFIG_JSON`. Starts
 * startHub on its store folder with the DynamoDB API on a loopback port, sends `ready`, then
 * answers:
 *   write { op, table? }   the back office's write (to `table`, default the config's): through
 *                  the AWS SDK to the hub's own API port (one at a time, in the order asked). Answers the hub clock read just before and just
 *                  after (the write's HLC, if the hub stamps one, lies between), the new image, or
 *                  noop for a delete that found nothing
 *   create-table { definition }   a CreateTable through the same API
 *   status, close
 * The parent SIGKILLs it at random moments and starts it again on the same folder.
 */
import { CreateTableCommand, DeleteItemCommand, DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { startHub } from '../../../src/hub/start-hub.js';
import type { SubscriptionPermissions } from '../../../src/hub/device-access.js';
import type { ForwardOptions } from '../../../src/hub/forward/start-forwarder.js';
import type { ClientTls } from './broker.js';
import { sendEvent, serveCalls } from './child-process.js';
import { writeRequest, type Op } from './workload.js';
import type { Hlc } from '../../../src/stream/hlc.js';

export type HubConfig = {
  readonly path: string;
  readonly url: string;
  readonly namespace: string;
  readonly table: string;
  readonly hubId: string;
  readonly downAckTimeoutMs: number;
  /** On the TLS broker: the hub's certificate (CN = the ACL's hub user), key and the CA. */
  readonly tls?: ClientTls;
  /** The hub's own checks: the devices it accepts, and the partition keys each may subscribe to. */
  readonly access?: { readonly allowDevices: readonly string[]; readonly subscriptions: SubscriptionPermissions };
  /** Forward the hub's tables to this DynamoDB-compatible endpoint (the fleet test's dynalite). */
  readonly forward?: ForwardOptions;
};
export type HubWriteResult = { readonly lo: Hlc; readonly hi: Hlc; readonly noop: boolean; readonly image?: Record<string, unknown> };

const config = JSON.parse(process.argv[2]!) as HubConfig;
const hub = startHub({ path: config.path, url: config.url, namespace: config.namespace, port: 0, downAckTimeoutMs: config.downAckTimeoutMs, ...config.tls, ...config.access, ...(config.forward ? { forward: config.forward } : {}) });
await hub.ready;
const endpoint = `http://127.0.0.1:${hub.status().api!.port}`;
const client = new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'back-office', secretAccessKey: 'back-office' }, maxAttempts: 1 });

serveCalls(async (cmd, args) => {
  switch (cmd) {
    case 'write': {
      const op = args['op'] as Op;
      const { operation, request } = writeRequest((args['table'] as string | undefined) ?? config.table, op, config.hubId);
      const lo = hub.status().clock;
      // The SDK's types want its own shapes; the request is the same wire JSON.
      const input = request as never;
      const out: { Attributes?: Record<string, unknown> } =
        operation === 'PutItem' ? await client.send(new PutItemCommand(input)) : operation === 'UpdateItem' ? await client.send(new UpdateItemCommand(input)) : await client.send(new DeleteItemCommand(input));
      const hi = hub.status().clock;
      const image = operation === 'PutItem' ? (request['Item'] as Record<string, unknown>) : operation === 'UpdateItem' ? out.Attributes : undefined;
      return { lo, hi, noop: operation === 'DeleteItem' && !out.Attributes, ...(image ? { image } : {}) } satisfies HubWriteResult;
    }
    case 'create-table':
      await client.send(new CreateTableCommand(args['definition'] as never));
      return null;
    case 'status':
      return hub.status();
    case 'close':
      client.destroy();
      await hub.stop();
      setImmediate(() => process.exit(0));
      return null;
    default:
      throw new Error(`unknown command ${cmd}`);
  }
});
sendEvent('ready', { incarnation: hub.status().incarnation });
