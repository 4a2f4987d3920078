/**
 * Parsing with a bounded LRU cache keyed by (expression kind, text). Applications send the same
 * few expression texts over and over with different values, so the parsed tree (which holds
 * placeholders, never values) is shared; resolution runs per request.
 *
 * Only successful parses are cached: a failing text is parsed again, and throws again, each time.
 */
import type { ConditionNode, Parsed, ProjectionNode, UpdateNode } from './ast.js';
import { expressionError, type ExpressionKind } from './expression-error.js';
import { MAX_EXPRESSION_BYTES } from '../model/limits.js';
import { utf8ByteLength } from '../model/utf8.js';
import { parseCondition } from './parse-condition.js';
import { parseProjection } from './parse-projection.js';
import { parseUpdate } from './parse-update.js';

export type ParsedByKind = {
  ConditionExpression: ConditionNode<Parsed>;
  FilterExpression: ConditionNode<Parsed>;
  KeyConditionExpression: ConditionNode<Parsed>;
  UpdateExpression: UpdateNode<Parsed>;
  ProjectionExpression: ProjectionNode<Parsed>;
};

const PARSERS: { readonly [K in ExpressionKind]: (text: string) => ParsedByKind[K] } = {
  ConditionExpression: (text) => parseCondition('ConditionExpression', text),
  FilterExpression: (text) => parseCondition('FilterExpression', text),
  KeyConditionExpression: (text) => parseCondition('KeyConditionExpression', text),
  UpdateExpression: parseUpdate,
  ProjectionExpression: parseProjection,
};

/** Entries per expression kind. */
export const PARSE_CACHE_ENTRIES = 512;

const caches = new Map<ExpressionKind, Map<string, unknown>>();
let hits = 0;
let misses = 0;

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/** Parses `text` as `kind` (empty and size checks included), from the cache when possible. */
export function parseExpression<K extends ExpressionKind>(kind: K, text: string): ParsedByKind[K] {
  let cache = caches.get(kind);
  if (cache === undefined) {
    cache = new Map();
    caches.set(kind, cache);
  }
  const cached = cache.get(text);
  if (cached !== undefined) {
    hits++;
    // Refresh recency only when the entry is not already the newest: Map keeps insertion order.
    cache.delete(text);
    cache.set(text, cached);
    return cached as ParsedByKind[K];
  }
  misses++;
  if (isBlank(text)) throw expressionError(kind, 'The expression can not be empty;');
  const bytes = utf8ByteLength(text);
  if (bytes > MAX_EXPRESSION_BYTES) {
    // Captured (2026): an UpdateExpression's message stops at the `;`; the others give the size.
    const tail = kind === 'UpdateExpression' ? '' : ` expression size: ${bytes}`;
    throw expressionError(kind, `Expression size has exceeded the maximum allowed size;${tail}`);
  }
  const parsed = PARSERS[kind](text);
  cache.set(text, parsed);
  if (cache.size > PARSE_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return parsed;
}

export function parseCacheStats(): { hits: number; misses: number; entries: number } {
  let entries = 0;
  for (const cache of caches.values()) entries += cache.size;
  return { hits, misses, entries };
}

export function clearParseCache(): void {
  caches.clear();
  hits = 0;
  misses = 0;
}
