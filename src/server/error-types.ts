/**
 * How a thrown error becomes a DynamoDB error response (spec §8.3): one table from the error's
 * `name` to its `__type` namespace and HTTP status. Names absent from the table but thrown as an
 * EdgetableError take the DynamoDB service namespace and 400; anything else (a bug, a
 * StorageError) is an InternalServerError 500 whose message reveals nothing internal.
 */
import { EdgetableError } from '../model/errors.js';
import { StorageError } from '../storage/storage-error.js';

const CORAL_SERVICE = 'com.amazon.coral.service';
const CORAL_VALIDATE = 'com.amazon.coral.validate';
const CORAL_AVAILABILITY = 'com.amazon.coral.availability';
const DYNAMODB = 'com.amazonaws.dynamodb.v20120810';

type ErrorType = { readonly namespace: string; readonly status: number };

export const ERROR_TYPES: Readonly<Record<string, ErrorType>> = {
  ValidationException: { namespace: CORAL_VALIDATE, status: 400 },
  SerializationException: { namespace: CORAL_SERVICE, status: 400 },
  UnknownOperationException: { namespace: CORAL_SERVICE, status: 400 },
  MissingAuthenticationTokenException: { namespace: CORAL_SERVICE, status: 400 },
  UnrecognizedClientException: { namespace: CORAL_SERVICE, status: 400 },
  InvalidSignatureException: { namespace: CORAL_SERVICE, status: 400 },
  IncompleteSignatureException: { namespace: CORAL_SERVICE, status: 400 },
  AccessDeniedException: { namespace: CORAL_SERVICE, status: 400 },
  ThrottlingException: { namespace: CORAL_AVAILABILITY, status: 400 },
  InternalServerError: { namespace: DYNAMODB, status: 500 },
  ServiceUnavailable: { namespace: DYNAMODB, status: 503 },
};

const DEFAULT_TYPE: ErrorType = { namespace: DYNAMODB, status: 400 };
const INTERNAL_MESSAGE = 'Internal server error';

/** The JSON body fields an error carries besides `__type`. */
export type ErrorBody = { __type: string } & Record<string, unknown>;

export type ErrorResponse = { statusCode: number; body: ErrorBody; internal: boolean };

/** Builds the body of a named DynamoDB error. */
export function namedErrorResponse(name: string, message: string, extra: Record<string, unknown> = {}): ErrorResponse {
  const type = ERROR_TYPES[name] ?? DEFAULT_TYPE;
  return { statusCode: type.status, body: { __type: `${type.namespace}#${name}`, message, ...extra }, internal: false };
}

/** Maps anything thrown by an operation to its response; `internal` marks errors worth logging. */
export function errorResponse(error: unknown): ErrorResponse {
  if (!(error instanceof EdgetableError) || error instanceof StorageError) {
    return { ...namedErrorResponse('InternalServerError', INTERNAL_MESSAGE), internal: true };
  }
  const fields = error as EdgetableError & { Item?: unknown; CancellationReasons?: unknown };
  if (fields.CancellationReasons !== undefined) {
    // Observed on the wire with a capitalised `Message` (spec §6.7); SDKs read either.
    const type = ERROR_TYPES[error.name] ?? DEFAULT_TYPE;
    return {
      statusCode: type.status,
      body: { __type: `${type.namespace}#${error.name}`, Message: error.message, CancellationReasons: fields.CancellationReasons },
      internal: false,
    };
  }
  const extra = fields.Item !== undefined ? { Item: fields.Item } : {};
  return { ...namedErrorResponse(error.name, error.message, extra), internal: error.name === 'InternalServerError' };
}
