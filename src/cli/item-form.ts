/**
 * Which of the CLI's two item forms an input looks like, for the hint `put` and `import` add when
 * the engine refused an item in the form the command was told (`--plain` or not):
 *
 *   DynamoDB JSON  an object whose every value is an object of exactly one member named by a type:
 *                  {"id": {"S": "a"}, "n": {"N": "1"}}
 *   plain JSON     anything else: {"id": "a", "n": 1}
 *
 * A guess, so it is only ever added to a refusal, never used to decide how to read an item: a
 * plain item may well look like DynamoDB JSON ({"tag": {"S": "x"}} is a map either way).
 */
import { CliError } from './cli-io.js';

const TYPE_NAMES: ReadonlySet<string> = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);

const PLAIN_EXAMPLE = `'{"id":"a"}'`;
const DYNAMO_EXAMPLE = `'{"id":{"S":"a"}}'`;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is an object of attribute values in DynamoDB JSON (an empty object is not). */
export function isDynamoJsonItem(value: unknown): boolean {
  if (!isObject(value)) return false;
  const values = Object.values(value);
  return (
    values.length > 0 &&
    values.every((v) => {
      if (!isObject(v)) return false;
      const members = Object.keys(v);
      return members.length === 1 && TYPE_NAMES.has(members[0]!);
    })
  );
}

/** `put`'s hint for a refused item, or undefined when the item is in the form it was told. */
export function itemFormHint(item: unknown, plain: boolean): string | undefined {
  if (plain) return isDynamoJsonItem(item) ? `the item looks like DynamoDB JSON (${DYNAMO_EXAMPLE}): leave out --plain` : undefined;
  return isObject(item) && !isDynamoJsonItem(item) ? `the item looks like plain JSON (${PLAIN_EXAMPLE}): add --plain, or write it in DynamoDB JSON (${DYNAMO_EXAMPLE})` : undefined;
}

/**
 * `import`'s hint for a refused line (parsed JSON): without --plain a line is export's
 * `{"Item": <DynamoDB JSON>}`, with --plain a plain JSON item.
 */
export function lineFormHint(line: unknown, plain: boolean): string | undefined {
  if (!isObject(line)) return undefined;
  if (plain) {
    const keys = Object.keys(line);
    if (keys.length === 1 && keys[0] === 'Item' && isDynamoJsonItem(line['Item'])) return `the line looks like export's DynamoDB JSON ({"Item": {...}}): import without --plain`;
    return isDynamoJsonItem(line) ? `the line looks like DynamoDB JSON (${DYNAMO_EXAMPLE}): import without --plain, each line {"Item": ...}` : undefined;
  }
  const item = line['Item'];
  if (item === undefined) return isDynamoJsonItem(line) ? `the line looks like a DynamoDB JSON item without its {"Item": ...} wrapper` : `the line looks like a plain JSON item (${PLAIN_EXAMPLE}): import with --plain`;
  return isObject(item) && !isDynamoJsonItem(item) ? `the line's Item looks like plain JSON: write it in DynamoDB JSON, or import plain items (one per line, no wrapper) with --plain` : undefined;
}

/** The errors a wrong item form gets from the engine: the hint is added to these only. */
const FORM_ERRORS: ReadonlySet<string> = new Set(['ValidationException', 'SerializationException']);

/** `error` with `hint` after its message (same name, so the same first word on stderr), or `error` as it was. */
export function withFormHint(error: unknown, hint: string | undefined): unknown {
  if (hint === undefined || !(error instanceof Error) || !FORM_ERRORS.has(error.name)) return error;
  return new CliError(error.name, `${error.message.split('\n', 1)[0]} (${hint})`);
}
