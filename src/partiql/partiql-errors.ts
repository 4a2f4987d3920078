/** PartiQL's own exceptions and DynamoDB's texts for statements it cannot run. */
import { EdgetableError, ValidationException } from '../model/errors.js';

/** INSERT of an item whose primary key already exists. */
export class DuplicateItemException extends EdgetableError {
  constructor() {
    super('Duplicate primary key exists in table');
  }
}

/**
 * A statement DynamoDB refuses for what it says (its grammar or its shape), not for the values of
 * its parameters. ExecuteTransaction reports these as `Validation failed in TransactStatements[i]: `
 * + the message; other operations report the message alone.
 */
export class PartiqlStatementError extends ValidationException {
  constructor(message: string) {
    super(message);
    this.name = 'ValidationException';
  }
}

/** A statement outside the grammar: DynamoDB's ValidationException text with the detail. */
export class PartiqlSyntaxError extends PartiqlStatementError {
  constructor(detail: string) {
    super(`Statement wasn't well formed, can't be processed: ${detail}`);
  }
}
