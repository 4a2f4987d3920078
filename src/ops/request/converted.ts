/**
 * A member converted in the parse step whose conversion failed, kept to be thrown where the
 * operation meets the member: DynamoDB reports some problems only after others (an unknown table
 * first, then the semantic checks in their fixed order), so a conversion done early must not
 * report early. `accept` at the member's old place in that order throws the kept error.
 */
import { EdgetableError } from '../../model/errors.js';

export class Refusal {
  constructor(readonly error: EdgetableError) {
    Object.freeze(this);
  }
}

/** A converted value, or the refusal its conversion ended in. */
export type Converted<T> = T | Refusal;

/** Runs a conversion; a DynamoDB error it throws is kept as a Refusal (anything else is a bug, thrown at once). */
export function convert<T>(read: () => T): Converted<T> {
  try {
    return read();
  } catch (error) {
    if (error instanceof EdgetableError) return new Refusal(error);
    throw error;
  }
}

/** The value, or the refusal's error thrown: call it where the operation used to convert the member. */
export function accept<T>(value: Converted<T>): T {
  if (value instanceof Refusal) throw value.error;
  return value;
}
