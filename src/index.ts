/**
 * The package's face, exactly what README.md and docs/ document: open() and the Edgetable class,
 * every operation's request and response types (api/), the HTTP server, the hub and the bridge,
 * and the errors a caller can catch. Everything else is internal.
 */
export { open, Edgetable, type OpenOptions, type EngineOptions, type OperationName, type DynamoRequest, type DynamoResponse } from './edgetable.js';

export type * from './api/shapes.js';
export type * from './api/item-operations.js';
export type * from './api/table-operations.js';
export type { OperationTypes, OperationInput, OperationOutput } from './api/operation-types.js';

export {
  EdgetableError,
  ValidationException,
  SerializationException,
  ResourceNotFoundException,
  ResourceInUseException,
  LimitExceededException,
  ProvisionedThroughputExceededException,
  ThrottlingException,
  ItemCollectionSizeLimitExceededException,
  TransactionConflictException,
  TransactionInProgressException,
  IdempotentParameterMismatchException,
  InternalServerError,
  ConditionalCheckFailedException,
  TransactionCanceledException,
  type CancellationReason,
} from './model/errors.js';
export { StorageError, type StorageErrorCode } from './storage/storage-error.js';
export { StoreFormatError } from './storage/store-format.js';
export { OutboxFullError } from './stream/outbox-full-error.js';
export { SyncError } from './sync/sync-error.js';

export { startServer, type ServerOptions, type RunningServer } from './server/start-server.js';
export type { EdgetableRequestHandler } from './server/sdk-request-handler.js';
export type { SigV4Options } from './server/sigv4.js';
export { loadAuthFile } from './server/auth-file.js';
export { startHub, startBridge, clearRetainedSchemas } from './start-services.js';
export type { HubOptions, Hub, HubStatus, RefusedDevice } from './hub/start-hub.js';
export type { AllowDevices, SubscriptionPermissions, PartitionKeyValue } from './hub/device-access.js';
export type { SchemaConflict } from './hub/announced-schemas.js';
export type { ClearSchemasOptions } from './hub/clear-schemas.js';
export type { BridgeOptions, Bridge } from './bridge/start-bridge.js';
export type { SyncOptions, SyncHandle, SyncStatus, ShardSyncStatus, TlsOptions, RejectedWriteReport } from './sync/sync-options.js';
export type { ConflictRule, ConflictRules } from './replication/conflict-rule.js';
export type { TableChange, ChangeOrigin, RejectedWrite } from './observe/table-change.js';
export type { ChangeListener, ObserveErrorHandler } from './observe/change-feed.js';
export { ObserveOverflowError, type ChangeIterator, type ObserveIteratorOptions, type ObservedChange } from './observe/change-iterator.js';
export type { TableSyncStatus } from './sync/sync-options.js';
