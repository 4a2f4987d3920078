import { EdgetableError } from '../model/errors.js';

/** Sync or hub misuse or failure that is not a DynamoDB error (bad options, rejected batch...). */
export class SyncError extends EdgetableError {}
