/**
 * How operations meet their requests (issue 46: a request is recognised once), read from the code:
 *
 * - The parse step owns the raw request: the schema pass (ops/request/schema/), each operation's parse
 *   into a typed, frozen request (ops/request/) and requestObject (ops/request/request-checks.ts).
 *   Everywhere else in ops/, a function that takes the raw `request: unknown` may only hand it on
 *   whole, to a parse entry point or to another such function (itself held to this rule): no cast,
 *   no member read, no `readX(request, ...)`. And it hands it on once: an operation parses its
 *   request once, and decides its fast paths (GetItem's and Query's plain requests,
 *   ops/request/plain-*.ts) from the typed request, never by reading the raw one again.
 * - No operation's output is asserted: no `as <Op>Output` anywhere in src/. The operation table
 *   (ops/operations.ts) types every handler's result against api/, so the compiler checks it.
 * - No operation reads the members of a checked request one by one with readX/optionalX helpers:
 *   they read them from their typed request (the list below, empty now, only shrinks).
 * - A typed request holds typed values: no `unknown` in the types the parse step exports
 *   (ops/request/*-request.ts, *-input.ts), but for the members listed below, which only shrink.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../src/ops/operations.js';
import { REQUEST_SCHEMAS, type SchemaOperation } from '../../src/ops/request/schema/schemas.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const OPS = path.join(SRC, 'ops');

/** The parse step: the only code of ops/ that may look inside a raw request. */
const PARSE_STEP = [
  /^request\/schema\//,
  /^request\/(?!item-request\.ts$)[a-z-]+-request\.ts$/, // each operation's parse; item-request.ts holds semantic checks
  /^request\/(item-write-options|limit-and-select|request-checks|plain-query)\.ts$/, // plain-query.ts: the key-condition template, read at Query's parse
  /^request\/[a-z-]+-input\.ts$/, // members shared by several parses (index-input.ts, ...)
];

/** The files whose exported types are the typed requests and the typed values they hold. */
const TYPED_REQUEST_FILES = /^request\/(?!plain-)[a-z-]+-(request|input)\.ts$|^request\/converted\.ts$/;

/**
 * Members of the exported types that still hold an unchecked value, each named so it cannot
 * spread; the test fails when one is gone, so the list only shrinks.
 * - expressionMembers: the checked request, handed whole to expr/'s compileRequest after the table
 *   is resolved (its condition, update and projection members, null as given, are judged there).
 * - shapeErrorFirst: a function over caught errors, not a member of the request.
 */
const KNOWN_UNKNOWN_MEMBERS: readonly string[] = [
  'request/batch-write-item-request.ts BatchWriteItemRequest.shapeErrorFirst',
  'request/delete-item-request.ts DeleteItemRequest.expressionMembers',
  'request/get-item-request.ts GetItemRequest.expressionMembers',
  'request/put-item-request.ts PutItemRequest.expressionMembers',
  'request/update-item-request.ts UpdateItemRequest.expressionMembers',
];

/** Where a raw request may be handed whole (besides other ops/ functions taking `request: unknown`). */
const PARSE_ENTRY_POINTS = new Set(['checkRequest', 'checkRequestDeferringItemScans', 'parseGetItemRequest', 'parsePutItemRequest', 'parseQueryRequest', 'parseDeleteItemRequest', 'parseUpdateItemRequest', 'parseScanRequest', 'parseBatchGetItemRequest', 'parseBatchWriteItemRequest', 'parseListTablesRequest', 'parseUpdateTimeToLiveRequest', 'parseUpdateTableRequest', 'parseCreateTableRequest', 'parseTagResourceRequest', 'parseUntagResourceRequest', 'parseListTagsOfResourceRequest', 'parseTransactGetItemsRequest', 'parseTransactWriteItemsRequest']);

/**
 * Raw-request uses outside the parse step, each named so it cannot spread; the test fails when
 * one is gone, so the list only shrinks. None today.
 */
const KNOWN_RAW_USES: readonly string[] = [];

/**
 * Files that read members of the checked (still untyped) request with readX/optionalX helpers:
 * the ~28 re-readers issue 46 named. None left: every operation with members to read takes a
 * typed, frozen request (ops/request/); the list stays so a new re-reader fails this test.
 */
const KNOWN_MEMBER_READERS: readonly string[] = [];

/**
 * Functions that hand their raw request on more than once (a second parse, or a recogniser before
 * the parse), each named; the list only shrinks.
 */
const KNOWN_SECOND_USES: readonly string[] = [];

/**
 * Output assertions left, each named. None: db.promises' queue (ops/commit-queue.ts) runs every
 * operation kind through one list, and each write keeps its output type in the closure that
 * delivers it (CommitQueue.submit is generic over the operation's name).
 */
const KNOWN_OUTPUT_ASSERTIONS: readonly string[] = [];

/**
 * Operations whose handler still runs the schema pass itself on a request with members to read,
 * instead of taking a typed request from ops/request/<op>-request.ts. The list only shrinks.
 */
const KNOWN_UNPARSED_OPERATIONS: readonly string[] = [];

/** `<Type>.<member>` for each member of an exported type of `code` that mentions `unknown`. */
export function unknownMembers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/export\s+type\s+(\w+)[^=]*=/g)) {
    let depth = 0;
    let end = m.index + m[0].length;
    for (; end < code.length; end++) {
      const c = code[end]!;
      if ('{([<'.includes(c)) depth++;
      else if ('})]'.includes(c) || (c === '>' && code[end - 1] !== '=')) depth--;
      else if (c === ';' && depth === 0) break;
    }
    const body = code.slice(m.index + m[0].length, end);
    // Each member names itself `readonly <name>`: the last one before the word owns it.
    const owners = new Set([...body.matchAll(/\bunknown\b/g)].map((u) => [...body.slice(0, u.index).matchAll(/\breadonly\s+(\w+)/g)].pop()?.[1] ?? '?'));
    for (const owner of owners) found.push(`${m[1]}.${owner}`);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * The code without comments (line comments after code too) and with every string literal
 * emptied, so prose and messages ("... in the request.") do not count.
 */
function codeOf(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .map((line) => line.replace(/(^|\s)\/\/.*$/, ''))
    .join('\n')
    .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
}

type RawUse = { readonly fn: string; readonly use: string };

/** The body of the block opening at `open` (an index of `{`), braces balanced. */
function blockAt(code: string, open: number): string {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '{') depth++;
    else if (code[i] === '}' && --depth === 0) return code.slice(open + 1, i);
  }
  return code.slice(open + 1);
}

/**
 * Every use of the raw `request` inside functions declared with a `request: unknown` parameter,
 * other than handing it whole to a parse entry point or to `handOn` (such functions of ops/).
 */
export function rawRequestUses(code: string, handOn: ReadonlySet<string>): RawUse[] {
  const uses: RawUse[] = [];
  const declaration = /function\s+(\w+)\s*\(([^)]*\brequest\??:\s*unknown\b[^)]*)\)[^{]*\{/g;
  for (const m of code.matchAll(declaration)) {
    const body = blockAt(code, m.index + m[0].length - 1);
    for (const r of body.matchAll(/\brequest\b/g)) {
      const before = body.slice(0, r.index);
      const after = body.slice(r.index + r[0].length);
      const callee = /(\w+)\s*\((?:[^()]*,\s*)?$/.exec(before)?.[1];
      const handedWhole = /^\s*[,)]/.test(after) && callee !== undefined && (PARSE_ENTRY_POINTS.has(callee) || handOn.has(callee));
      if (handedWhole) continue;
      const use = /^\s*as\b/.test(after) ? 'request as' : /^\s*(\?\.|\.|\[)/.test(after) ? 'member read' : callee ? `${callee}(request)` : 'other use';
      uses.push({ fn: m[1]!, use });
    }
  }
  return uses;
}

/** Functions of `code` taking a raw `request: unknown` that name it more than once in their body. */
export function rawRequestFunctionsUsingItTwice(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/function\s+(\w+)\s*\(([^)]*\brequest\??:\s*unknown\b[^)]*)\)[^{]*\{/g)) {
    const body = blockAt(code, m.index + m[0].length - 1);
    if ([...body.matchAll(/\brequest\b/g)].length > 1) out.push(m[1]!);
  }
  return out;
}

/** Names of the functions of `code` declared with a `request: unknown` parameter. */
function rawRequestFunctions(code: string): string[] {
  return [...code.matchAll(/function\s+(\w+)\s*\([^)]*\brequest\??:\s*unknown\b/g)].map((m) => m[1]!);
}

const OPS_FILES = sourceFiles(OPS).map((file) => ({ rel: path.relative(OPS, file).split(path.sep).join('/'), code: codeOf(readFileSync(file, 'utf8')) }));
const HANDLERS = OPS_FILES.filter((f) => !PARSE_STEP.some((p) => p.test(f.rel)));
const HAND_ON = new Set(HANDLERS.flatMap((f) => rawRequestFunctions(f.code)));
const SRC_FILES = sourceFiles(SRC).map((file) => ({ rel: path.relative(SRC, file).split(path.sep).join('/'), code: codeOf(readFileSync(file, 'utf8')) }));
const OUTPUT_CAST = new RegExp(`\\bas\\s+(?:${OPERATION_NAMES.join('|')})Output\\b`, 'g');

describe('operations and their requests (issue 46)', () => {
  it('finds the operation handlers and their raw-request functions', () => {
    // A pattern that stopped matching would make every rule below pass vacuously.
    for (const fn of ['putItem', 'getItem', 'query', 'scan', 'createTable', 'describeLimits']) expect(HAND_ON.has(fn), fn).toBe(true);
  });

  it('hands the raw request only to the parse step outside it: no cast, no member read, no readX(request)', () => {
    const uses = HANDLERS.flatMap((f) => rawRequestUses(f.code, HAND_ON).map((u) => `${f.rel} ${u.fn}: ${u.use}`));
    expect(uses.filter((u) => !KNOWN_RAW_USES.includes(u))).toEqual([]);
  });

  it('still has each known raw-request use (remove it from the list once the code no longer has it)', () => {
    const uses = new Set(HANDLERS.flatMap((f) => rawRequestUses(f.code, HAND_ON).map((u) => `${f.rel} ${u.fn}: ${u.use}`)));
    expect(KNOWN_RAW_USES.filter((u) => !uses.has(u))).toEqual([]);
  });

  it('hands the raw request on once in each function that takes it (the list only shrinks)', () => {
    const twice = HANDLERS.flatMap((f) => rawRequestFunctionsUsingItTwice(f.code).map((fn) => `${f.rel} ${fn}`));
    expect(twice).toEqual([...KNOWN_SECOND_USES]);
  });

  it('casts no request to any in ops/', () => {
    expect(OPS_FILES.filter((f) => /\bas\s+any\b/.test(f.code)).map((f) => f.rel)).toEqual([]);
  });

  it('asserts no operation output: no `as <Op>Output` in src/, and OperationOutput only where listed', () => {
    expect(SRC_FILES.flatMap((f) => [...f.code.matchAll(OUTPUT_CAST)].map((m) => `${f.rel}: ${m[0]}`))).toEqual([]);
    const generic = SRC_FILES.flatMap((f) => [...f.code.matchAll(/\bas\s+OperationOutput<\w+>/g)].map((m) => `${f.rel}: ${m[0]}`));
    expect(generic).toEqual(KNOWN_OUTPUT_ASSERTIONS);
  });

  it('reads checked request members with readX helpers only in the listed files (the list only shrinks)', () => {
    const readers = HANDLERS.filter((f) => /\b(?:read|optional)\w*\(req\.\w+/.test(f.code)).map((f) => f.rel);
    expect(readers).toEqual([...KNOWN_MEMBER_READERS]);
  });

  it('runs the schema pass in an operation only on a request with nothing to parse (a TableName at most)', () => {
    const calls = HANDLERS.flatMap((f) => [...f.code.matchAll(/\bcheckRequest\w*\(\s*([\w.]+)/g)].map((m) => m[1]!));
    const operations = calls.map((arg) => /^REQUEST_SCHEMAS\.(\w+)$/.exec(arg)?.[1] ?? `not a schema: ${arg}`);
    // A pattern that stopped matching would make this rule pass vacuously.
    expect(operations).toContain('DescribeTable');
    const withMembers = operations.filter((op) => !(op in REQUEST_SCHEMAS) || Object.keys(REQUEST_SCHEMAS[op as SchemaOperation]).some((m) => m !== 'TableName'));
    expect(withMembers.sort()).toEqual([...KNOWN_UNPARSED_OPERATIONS]);
  });

  it('holds typed values in the typed requests: no `unknown` in their exported types but the listed members', () => {
    const files = OPS_FILES.filter((f) => TYPED_REQUEST_FILES.test(f.rel));
    // A pattern that stopped matching would make this rule pass vacuously.
    for (const rel of ['request/create-table-request.ts', 'request/update-table-request.ts', 'request/batch-get-item-request.ts', 'request/index-input.ts']) {
      expect(files.map((f) => f.rel), rel).toContain(rel);
    }
    const members = files.flatMap((f) => unknownMembers(f.code).map((m) => `${f.rel} ${m}`));
    expect(members.filter((m) => !KNOWN_UNKNOWN_MEMBERS.includes(m))).toEqual([]);
    expect(KNOWN_UNKNOWN_MEMBERS.filter((m) => !members.includes(m))).toEqual([]);
  });

  it('finds `unknown` in an exported type, nested and in a union, but not in a function body', () => {
    const probe = codeOf(`
      export type A = { readonly a: string; readonly b: Readonly<Record<string, unknown>>; readonly f: (x: number) => string };
      export type B =
        | { readonly kind: 'x'; readonly inner: { readonly deep: unknown } }
        | { readonly kind: 'y' };
      export function parse(request: unknown): A { return request as A; }`);
    expect(unknownMembers(probe)).toEqual(['A.b', 'B.deep']);
  });

  it('catches a cast, a member read and a readX of the raw request (the rules are not vacuous)', () => {
    const probe = codeOf(`
      function probe(ctx: EngineContext, request: unknown) {
        const a = (request as Record<string, unknown>).TableName; // a cast
        const b = readTableName(request, 'x');
        const req = checkRequest(SCHEMA, request);
        return helper(ctx, request) ?? request?.Key;
      }
      function helper(ctx: EngineContext, request: unknown) { return parseGetItemRequest(request); }`);
    expect(rawRequestUses(probe, new Set(['helper'])).map((u) => `${u.fn}: ${u.use}`)).toEqual(['probe: request as', 'probe: readTableName(request)', 'probe: member read']);
    expect(`x as PutItemOutput;`.match(OUTPUT_CAST)).toEqual(['as PutItemOutput']);
    const recogniseThenParse = codeOf(`
      function getItem(ctx: EngineContext, request: unknown) {
        const plain = plainGet(request);
        return plain ? fast(plain) : general(parseGetItemRequest(request));
      }
      function query(ctx: EngineContext, request: unknown) { return run(parseQueryRequest(request)); }`);
    expect(rawRequestFunctionsUsingItTwice(recogniseThenParse)).toEqual(['getItem']);
  });
});
