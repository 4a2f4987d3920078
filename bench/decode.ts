/**
 * `npx tsx bench/decode.ts [--passes 9]`: the cost of decoding one stored item record, on the
 * contenders' item (bench/workload.ts) in 100,000 records of 1,000 sensors (100 each), encoded as
 * the storage layer stores them (bench/floor.ts), with no storage in the way. Prints ns per item
 * (best of several passes; never fails on a time) for:
 *
 * - the response form (decodeRecordToWire: a Query or Scan page without filter or projection) and
 *   the internal form (decodeRecord: filters, projections, writes), each
 * - with every name inline (index entries, stores from before the dictionary) and with the
 *   non-key names coded by a name dictionary (base records of a table, as read-page.ts reads them).
 *
 * Decoded items are kept in pages of 1,000 (as a Scan page holds them), so allocation and young
 * garbage cost what they cost in a read.
 */
import { parseArgs } from 'node:util';
import type { NameDecoder, NameEncoder } from '../src/codec/attribute-name-codes.js';
import { decodeRecord, decodeRecordToWire, encodeItemRecord } from '../src/codec/item-record.js';
import { itemSize } from '../src/model/item-size.js';
import { validateItem } from '../src/model/validate-attribute-value.js';
import { wireItem } from './contenders/edgetable.js';
import { reading } from './workload.js';

const { values } = parseArgs({ options: { passes: { type: 'string', default: '9' } } });
const PASSES = Number(values.passes);
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
      out.push(Uint8Array.from(encodeItemRecord(item, itemSize(item), codes)));
    }
  return out;
};
const inline = build(undefined);
const coded = build(dictionary);

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

const cases: [string, Uint8Array[], (record: Uint8Array) => unknown][] = [
  ['response form, names coded', coded, (r) => decodeRecordToWire(r, dictionary)],
  ['response form, names inline', inline, (r) => decodeRecordToWire(r)],
  ['internal form, names coded', coded, (r) => decodeRecord(r, dictionary)],
  ['internal form, names inline', inline, (r) => decodeRecord(r)],
];
// Two rounds, alternating the cases, so a burst of load from other processes hits one round of each.
const best = new Map<string, number>();
for (let round = 0; round < 2; round++)
  for (const [label, records, decode] of cases) best.set(label, Math.min(best.get(label) ?? Number.POSITIVE_INFINITY, measure(records, decode)));
for (const [label, ns] of best) console.log(`${label.padEnd(32)} ${ns.toFixed(0).padStart(6)} ns/item`);
