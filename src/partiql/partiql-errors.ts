/** PartiQL's own exceptions and DynamoDB's texts for statements it cannot run. */
import { EdgetableError, ValidationException } from '../model/errors.js';

/** INSERT of an item whose primary key already exists. */
export class DuplicateItemException extends EdgetableError {
  constructor() {
    super('Duplicate primary key exists in table');
  }
}

/** A statement outside the grammar: DynamoDB's ValidationException text with the detail. */
export class PartiqlSyntaxError extends ValidationException {
  constructor(detail: string) {
    super(`Statement wasn't well formed, can't be processed: ${detail}`);
    this.name = 'ValidationException';
  }
}
