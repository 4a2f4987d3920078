/**
 * Attribute names repeat from item to item, and so do many short string values (a sensor's id,
 * site, model, status). Returning the same string object for the same bytes lets V8 store
 * properties without hashing a fresh key string each time (measured: the cache roughly halves the
 * cost of building an item's map), and a hit on a value skips the native UTF-8 decode. Two
 * direct-mapped caches (names, values) so values never evict names; ASCII strings up to 32 bytes.
 * Each slot keeps its string's bytes as 8 little-endian 32-bit words beside the string, so a
 * lookup compares the words the hash already assembled (a word per 4 bytes, not a char per byte),
 * and a miss allocates nothing beyond the string. Bounded: 2 x 4096 strings of at most 32
 * characters, and 2 x 128 KB of words.
 *
 * Two ways per hash: a hash picks a pair of slots, the newer string first; a hit on the second
 * swaps them, and a miss moves the first to the second (dropping the older) and takes the first,
 * so two strings whose hashes meet both stay (least recently used out). Direct-mapped, the
 * benchmark's ~1,700 distinct short values (1,000 sensor ids, 680 locations) missed 0.36 times per
 * item read, and every miss is a string the cache keeps until a later miss evicts it: young
 * garbage that survives scavenges and is promoted, the larger part of what a GetItem leaves the
 * scavenger to copy (bench/get-probe.ts).
 */
export const TEXT_CACHE_SIZE = 4096;
export const MAX_CACHED_TEXT_BYTES = 32;
export const WORDS_PER_TEXT = MAX_CACHED_TEXT_BYTES / 4;

export type TextCache = { readonly strings: string[]; readonly words: Int32Array };

const textCache = (): TextCache => ({
  strings: new Array<string>(TEXT_CACHE_SIZE).fill(''),
  words: new Int32Array(TEXT_CACHE_SIZE * WORDS_PER_TEXT),
});
export const nameCache = textCache();
export const valueCache = textCache();
/** The words of the text being looked up. */
export const lookupWords = new Int32Array(WORDS_PER_TEXT);

/** The second string of the pair at `slot`, made its first (the older one second). */
export function promoteText(cache: TextCache, slot: number): string {
  const strings = cache.strings;
  const text = strings[slot + 1]!;
  strings[slot + 1] = strings[slot]!;
  strings[slot] = text;
  const words = cache.words;
  const at = slot * WORDS_PER_TEXT;
  for (let k = at; k < at + WORDS_PER_TEXT; k++) {
    const w = words[k]!;
    words[k] = words[k + WORDS_PER_TEXT]!;
    words[k + WORDS_PER_TEXT] = w;
  }
  return text;
}

/** Whether `slot` holds the text of `length` bytes whose `n` words are in lookupWords. */
export function sameText(cache: TextCache, slot: number, length: number, n: number): boolean {
  if (cache.strings[slot]!.length !== length) return false;
  const slotWords = cache.words;
  const words = lookupWords;
  const at = slot * WORDS_PER_TEXT;
  let k = 0;
  while (k < n && slotWords[at + k] === words[k]) k++;
  return k === n;
}

/**
 * The miss of item-reader.ts's cachedText: `text` (decoded by the caller), cached first in the pair
 * at `slot` with its `n` words if `ascii`; the pair's first string becomes its second, and its
 * second goes.
 */
export function cacheText(cache: TextCache, slot: number, text: string, n: number, ascii: boolean): string {
  if (ascii) {
    const strings = cache.strings;
    const slotWords = cache.words;
    const at = slot * WORDS_PER_TEXT;
    strings[slot + 1] = strings[slot]!;
    slotWords.copyWithin(at + WORDS_PER_TEXT, at, at + WORDS_PER_TEXT);
    strings[slot] = text;
    for (let k = 0; k < n; k++) slotWords[at + k] = lookupWords[k]!;
  }
  return text;
}
