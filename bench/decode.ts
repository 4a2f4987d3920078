/**
 * `npx tsx bench/decode.ts [--passes 9] [--rounds 3] [--only <label text>] [--before <dir>]`: the cost of decoding one stored item record, on the
 * contenders' item (bench/workload.ts) in 100,000 records of 1,000 sensors (100 each), encoded as
 * the storage layer stores them (bench/floor.ts), with no storage in the way. Prints ns per item
 * (best of several passes; never fails on a time) for:
 *
 * - the response form (decodeRecordToWire: a Query or Scan page without filter or projection) and
 *   the internal form (decodeRecord: filters, projections, writes), each
 * - with every name inline (index entries, stores from before the dictionary) and with the
 *   non-key names coded by a name dictionary (base records of a table, as read-page.ts reads them);
 * - and items that each lack a random quarter of the non-key attributes (names coded, response
 *   form): name sequences that rarely repeat from one item to the next.
 *
 * Decoded items are kept in pages of 1,000 (as a Scan page holds them), so allocation and young
 * garbage cost what they cost in a read.
 *
 * With `--before <dir>` (another checkout) that tree's decoder runs too, alternating with this
 * one's in every round, and the after/before ratios are printed: paired on the same load.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { NameDecoder, NameEncoder } from '../src/codec/attribute-name-codes.js';
import * as current from '../src/codec/item-record.js';
import { itemSize } from '../src/model/item-size.js';
import { validateItem } from '../src/model/validate-attribute-value.js';
import { wireItem } from './contenders/edgetable.js';
import { reading, rng } from './workload.js';
import type { AttributeValue } from '../src/model/attribute-value.js';

const { values } = parseArgs({ options: { passes: { type: 'string', default: '9' }, rounds: { type: 'string', default: '3' }, before: { type: 'string' }, only: { type: 'string' } } });
const PASSES = Number(values.passes);
const ROUNDS = Number(values.rounds);
type Codec = typeof current;
const trees: [string, Codec][] = [['after', current]];
if (values.before) trees.push(['before', (await import(pathToFileURL(join(values.before, 'src/codec/item-record.ts')).href)) as Codec]);
const SENSORS = 1000;
const PER_SENSOR = 100;
const PAGE_ITEMS = 1000;
const KEY_NAMES = new Set(['sensorId', 'ts']);

/** A table's dictionary as the reader sees it (table/attribute-names.ts): codes in first-use order. */
class Dictionary implements NameEncoder, NameDecoder {
  private readonly names: string[] = [];
  private readonly codes = new Map<string, number>();
  codeOf(name: string): number | undefined {
    if (KEY_NAMES.has(name)) return undefined;
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.push(name) - 1;
      this.codes.set(name, code);
    }
    return code;
  }
  knownName(code: number): string | undefined {
    return this.names[code];
  }
  nameOf(code: number): string | undefined {
    return this.names[code];
  }
}

const dictionary = new Dictionary();
/** Records in storage order (a sensor's readings together), each its own plain Uint8Array, as reads hand them out. */
const build = (codes: NameEncoder | undefined): Uint8Array[] => {
  const out: Uint8Array[] = [];
  for (let s = 0; s < SENSORS; s++)
    for (let i = 0; i < PER_SENSOR; i++) {
      const item = validateItem(wireItem(reading(s, i)));
      out.push(Uint8Array.from(current.encodeItemRecord(item, itemSize(item), codes)));
    }
  return out;
};
const inline = build(undefined);
const coded = build(dictionary);
/**
 * The same records with a varying subset of the non-key attributes (each kept with probability
 * 3/4, seeded): about 1,000 name sequences in turn, so a map's names rarely match the last ones.
 */
const varied = (() => {
  const random = rng(7);
  const out: Uint8Array[] = [];
  for (let s = 0; s < SENSORS; s++)
    for (let i = 0; i < PER_SENSOR; i++) {
      const item: Record<string, AttributeValue> = { ...validateItem(wireItem(reading(s, i))) };
      for (const name of Object.keys(item)) if (!KEY_NAMES.has(name) && random() < 0.25) delete item[name];
      out.push(Uint8Array.from(current.encodeItemRecord(item, itemSize(item), dictionary)));
    }
  return out;
})();

/** Best ns per item over PASSES passes of decoding every record with `decode`. */
const measure = (records: Uint8Array[], decode: (record: Uint8Array) => unknown): number => {
  let best = Number.POSITIVE_INFINITY;
  let page: unknown[] = [];
  for (let p = 0; p < PASSES; p++) {
    const t0 = performance.now();
    for (let i = 0; i < records.length; i++) {
      if (page.length === PAGE_ITEMS) page = [];
      page.push(decode(records[i]!));
    }
    best = Math.min(best, ((performance.now() - t0) * 1e6) / records.length);
  }
  return best;
};

/** `--only <text>`: the cases whose label contains it. */
const cases = (codec: Codec): [string, Uint8Array[], (record: Uint8Array) => unknown][] => allCases(codec).filter(([label]) => label.includes(values.only ?? ''));
const allCases = (codec: Codec): [string, Uint8Array[], (record: Uint8Array) => unknown][] => [
  ['response form, names coded', coded, (r) => codec.decodeRecordToWire(r, dictionary)],
  ['response form, names inline', inline, (r) => codec.decodeRecordToWire(r)],
  ['internal form, names coded', coded, (r) => codec.decodeRecord(r, dictionary)],
  ['internal form, names inline', inline, (r) => codec.decodeRecord(r)],
  ['response form, varied names', varied, (r) => codec.decodeRecordToWire(r, dictionary)],
];
// Rounds alternate the cases and trees, so a burst of load from other processes hits one round of each.
const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++)
  for (const [tree, codec] of round % 2 === 0 ? trees : [...trees].reverse())
    for (const [label, records, decode] of cases(codec)) {
      const key = `${label}|${tree}`;
      best.set(key, Math.min(best.get(key) ?? Number.POSITIVE_INFINITY, measure(records, decode)));
    }
for (const [label] of cases(current)) {
  const row = trees.map(([tree]) => `${tree} ${best.get(`${label}|${tree}`)!.toFixed(0).padStart(5)} ns/item`);
  if (trees.length > 1) row.push(`after/before ${(best.get(`${label}|after`)! / best.get(`${label}|before`)!).toFixed(3)}`);
  console.log(`${label.padEnd(30)} ${row.join('   ')}`);
}
