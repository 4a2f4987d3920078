/** The package's face: open(), the Edgetable class, its errors and types. */
export { open, Edgetable, OPERATIONS, type OpenOptions, type OperationName, type DynamoRequest, type DynamoResponse } from './edgetable.js';
export * from './model/errors.js';
export { StorageError } from './storage/storage-error.js';
export type { AttributeValue, WireAttributeValue, Item, WireItem } from './model/attribute-value.js';
export { startServer, type ServerOptions, type RunningServer } from './server/start-server.js';
export { createRequestHandler, type EdgetableRequestHandler } from './server/sdk-request-handler.js';
