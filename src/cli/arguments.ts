/**
 * Parsers for command-line values. Each throws commander's InvalidArgumentError, which commander
 * reports as a one-line usage error (exit code 2).
 */
import { InvalidArgumentError } from 'commander';

export function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidArgumentError('expected a JSON object');
  return parsed as Record<string, unknown>;
}

export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

export function port(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
}

export type KeyAttribute = { name: string; type: 'S' | 'N' | 'B' };

/** `id:S`, `ts:N`: an attribute name, a colon, a scalar type. */
export function keyAttribute(value: string): KeyAttribute {
  const colon = value.lastIndexOf(':');
  const name = value.slice(0, colon);
  const type = value.slice(colon + 1);
  if (colon < 1 || (type !== 'S' && type !== 'N' && type !== 'B')) throw new InvalidArgumentError('expected <name>:<S|N|B>, e.g. id:S');
  return { name, type };
}
