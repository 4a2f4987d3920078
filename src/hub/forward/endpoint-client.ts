/**
 * The forwarder's view of the DynamoDB-compatible endpoint: the only importer of the AWS SDK in
 * src/. Five calls, in DynamoDB's request and response shapes. The SDK's own retries are off
 * (maxAttempts 1): the forwarder retries throttling and unprocessed items itself
 * (write-records.ts), so it can count them and back off with jitter.
 *
 * The SDK (~13 MiB of memory, ~130 ms to load) is imported when the first client is created, so a
 * hub that does not forward never loads it.
 *
 * Tests wrap an EndpointClient to inject UnprocessedItems and throttling.
 */
import type {
  DynamoDBClient,
  AttributeValue as SdkAttributeValue,
  BatchWriteItemCommandOutput,
  CreateTableCommandInput,
  DeleteItemCommandInput,
  DescribeTableCommandOutput,
  PutItemCommandInput,
  WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { Item } from '../../model/attribute-value.js';
import type { EndpointCredentials } from './endpoint-credentials.js';

const CONNECT_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;

export type { EndpointCredentials } from './endpoint-credentials.js';

export type EndpointClient = {
  describeTable(tableName: string): Promise<DescribeTableCommandOutput['Table'] | undefined>;
  createTable(input: CreateTableCommandInput): Promise<void>;
  putItem(input: PutItemCommandInput): Promise<void>;
  deleteItem(input: DeleteItemCommandInput): Promise<void>;
  batchWriteItem(requestItems: Record<string, WriteRequest[]>): Promise<Record<string, WriteRequest[]>>;
  /**
   * Resolves the credentials requests will be signed with (the given ones, else the AWS SDK's
   * default chain); rejects as the chain does (CredentialsProviderError) when it finds none.
   * Optional: a test's client has none to check.
   */
  checkCredentials?(): Promise<void>;
  destroy(): void;
};

export type { WriteRequest };

/** Our internal items hold binary as Uint8Array, as the SDK's AttributeValue does. */
export function toSdkItem(item: Item): Record<string, SdkAttributeValue> {
  return item as unknown as Record<string, SdkAttributeValue>;
}

/** Every request is abandoned when `signal` aborts (the forwarder stopping), so stop never waits on the endpoint. */
export function createEndpointClient(options: { endpoint: string; region: string; credentials?: EndpointCredentials; signal?: AbortSignal }): EndpointClient {
  const sendOptions = options.signal ? { abortSignal: options.signal } : {};
  let client: DynamoDBClient | undefined;
  let destroyed = false;
  const loading = loadSdk().then((sdk) => {
    client = new sdk.DynamoDBClient({
      endpoint: options.endpoint,
      region: options.region,
      maxAttempts: 1,
      // An endpoint that stops answering fails the request (then retried, and reported) instead of hanging.
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
      ...(options.credentials ? { credentials: options.credentials } : {}),
    });
    if (destroyed) client.destroy();
    return { sdk, client };
  });
  loading.catch(() => undefined); // a failed load is reported by every request, not as unhandled
  return {
    describeTable: async (TableName) => {
      try {
        return (await send<DescribeTableCommandOutput>((sdk) => new sdk.DescribeTableCommand({ TableName }))).Table;
      } catch (err) {
        if ((err as Error).name === 'ResourceNotFoundException') return undefined;
        throw err;
      }
    },
    createTable: async (input) => {
      await send((sdk) => new sdk.CreateTableCommand(input));
    },
    putItem: async (input) => {
      await send((sdk) => new sdk.PutItemCommand(input));
    },
    deleteItem: async (input) => {
      await send((sdk) => new sdk.DeleteItemCommand(input));
    },
    batchWriteItem: async (RequestItems) => {
      const out = await send<BatchWriteItemCommandOutput>((sdk) => new sdk.BatchWriteItemCommand({ RequestItems }));
      return out.UnprocessedItems ?? {};
    },
    checkCredentials: async () => {
      const { client: c } = await loading;
      await c.config.credentials();
    },
    destroy: () => {
      destroyed = true;
      client?.destroy();
    },
  };

  async function send<O>(command: (sdk: Sdk) => { readonly input: unknown }): Promise<O> {
    const { sdk, client: c } = await loading;
    return (await c.send(command(sdk) as Parameters<DynamoDBClient['send']>[0], sendOptions)) as O;
  }
}

type Sdk = typeof import('@aws-sdk/client-dynamodb');

/** The AWS SDK version the forwarder is built and tested with (package.json peerDependencies). */
export const SDK_PACKAGE = '@aws-sdk/client-dynamodb@3';

/**
 * The SDK is an optional peer: a device that only stores and syncs does not install its 18 MB,
 * so only a hub that forwards loads it, and one without it is told what to install.
 */
async function loadSdk(): Promise<Sdk> {
  try {
    return await import('@aws-sdk/client-dynamodb');
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw err;
    throw new Error(MISSING_SDK, { cause: err });
  }
}

const MISSING_SDK = `forwarding to DynamoDB needs the AWS SDK, which edgetable does not install by itself: run \`npm install ${SDK_PACKAGE}\` beside edgetable`;

/** True for the error a client's requests fail with when the SDK is not installed. */
export function isMissingSdk(err: unknown): boolean {
  return err instanceof Error && err.message === MISSING_SDK;
}

/** Why the forwarder cannot run here (the SDK is not installed), or undefined when it can. */
export async function missingSdkMessage(): Promise<string | undefined> {
  try {
    await loadSdk();
    return undefined;
  } catch (err) {
    if (isMissingSdk(err)) return MISSING_SDK;
    throw err;
  }
}
