/**
 * The forwarder's view of the DynamoDB-compatible endpoint: the only importer of the AWS SDK in
 * src/. Five calls, in DynamoDB's request and response shapes. The SDK's own retries are off
 * (maxAttempts 1): the forwarder retries throttling and unprocessed items itself
 * (write-records.ts), so it can count them and back off with jitter.
 *
 * Tests wrap an EndpointClient to inject UnprocessedItems and throttling.
 */
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  type AttributeValue as SdkAttributeValue,
  type BatchWriteItemCommandOutput,
  type CreateTableCommandInput,
  type DeleteItemCommandInput,
  type DescribeTableCommandOutput,
  type PutItemCommandInput,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { Item } from '../../model/attribute-value.js';

const CONNECT_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 30_000;

export type EndpointCredentials = { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };

export type EndpointClient = {
  describeTable(tableName: string): Promise<DescribeTableCommandOutput['Table'] | undefined>;
  createTable(input: CreateTableCommandInput): Promise<void>;
  putItem(input: PutItemCommandInput): Promise<void>;
  deleteItem(input: DeleteItemCommandInput): Promise<void>;
  batchWriteItem(requestItems: Record<string, WriteRequest[]>): Promise<Record<string, WriteRequest[]>>;
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
  const client = new DynamoDBClient({
    endpoint: options.endpoint,
    region: options.region,
    maxAttempts: 1,
    // An endpoint that stops answering fails the request (then retried, and reported) instead of hanging.
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
  return {
    describeTable: async (TableName) => {
      try {
        return (await client.send(new DescribeTableCommand({ TableName }), sendOptions)).Table;
      } catch (err) {
        if ((err as Error).name === 'ResourceNotFoundException') return undefined;
        throw err;
      }
    },
    createTable: async (input) => {
      await client.send(new CreateTableCommand(input), sendOptions);
    },
    putItem: async (input) => {
      await client.send(new PutItemCommand(input), sendOptions);
    },
    deleteItem: async (input) => {
      await client.send(new DeleteItemCommand(input), sendOptions);
    },
    batchWriteItem: async (RequestItems) => {
      const out: BatchWriteItemCommandOutput = await client.send(new BatchWriteItemCommand({ RequestItems }), sendOptions);
      return out.UnprocessedItems ?? {};
    },
    destroy: () => client.destroy(),
  };
}
