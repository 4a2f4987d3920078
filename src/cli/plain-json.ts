/**
 * Plain JSON <-> DynamoDB JSON for the CLI's `--plain` mode, as @aws-sdk/lib-dynamodb marshals:
 *
 *   marshall:   string -> S, number -> N, boolean -> BOOL, null -> NULL, array -> L, object -> M
 *               (a number that is not finite, or an integer beyond 2^53 - 1, is refused as
 *               lib-dynamodb refuses it: JSON text cannot carry it exactly through JavaScript)
 *   unmarshall: S -> string, N -> number (its digits written verbatim, so nothing is rounded),
 *               BOOL, NULL, L, M as above; SS/NS -> array, B -> base64 string, BS -> array of them
 *
 * Sets and binary have no plain-JSON form on input: write those items in DynamoDB JSON. Output is
 * therefore lossy for them (a set reads back as a list).
 */
import { UsageError } from './cli-io.js';

type Wire = Record<string, unknown>;

/** A plain JSON object as a DynamoDB item (or key). */
export function marshallItem(value: Record<string, unknown>): Wire {
  const out: Wire = {};
  for (const [name, v] of Object.entries(value)) out[name] = marshallValue(v, name);
  return out;
}

function marshallValue(value: unknown, path: string): Wire {
  if (value === null) return { NULL: true };
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'boolean':
      return { BOOL: value };
    case 'number':
      if (!Number.isFinite(value)) throw new UsageError(`${path}: the number ${String(value)} is not allowed (DynamoDB numbers are finite)`);
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        throw new UsageError(`${path}: ${String(value)} is beyond 2^53 - 1 and would lose digits as a JavaScript number; write this item in DynamoDB JSON ({"N": "..."})`);
      }
      return { N: String(value) };
    case 'object':
      if (Array.isArray(value)) return { L: value.map((v, i) => marshallValue(v, `${path}[${i}]`)) };
      return { M: Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, marshallValue(v, `${path}.${k}`)])) };
    default:
      throw new UsageError(`${path}: a ${typeof value} has no DynamoDB type`);
  }
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A DynamoDB item (wire form) as one line of plain JSON text. */
export function plainItemJson(item: Wire): string {
  return `{${Object.entries(item).map(([name, v]) => `${JSON.stringify(name)}:${plainValueJson(v as Wire)}`).join(',')}}`;
}

function plainValueJson(value: Wire): string {
  const [type, payload] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S':
    case 'B':
    case 'BOOL':
      return JSON.stringify(payload);
    case 'N':
      return numberJson(payload as string);
    case 'NULL':
      return 'null';
    case 'SS':
    case 'BS':
      return JSON.stringify(payload);
    case 'NS':
      return `[${(payload as string[]).map(numberJson).join(',')}]`;
    case 'L':
      return `[${(payload as Wire[]).map(plainValueJson).join(',')}]`;
    case 'M':
      return plainItemJson(payload as Wire);
    default:
      return JSON.stringify(value);
  }
}

function numberJson(text: string): string {
  return JSON_NUMBER.test(text) ? text : String(Number(text));
}
