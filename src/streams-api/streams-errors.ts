/** The Streams API's own exceptions (names and messages as DynamoDB Streams sends them). */
import { EdgetableError } from '../model/errors.js';

/** The shard iterator is older than 15 minutes. */
export class ExpiredIteratorException extends EdgetableError {}

/** The iterator or sequence number points at records already trimmed from the shard. */
export class TrimmedDataAccessException extends EdgetableError {}
