/**
 * A table's attribute-name dictionary (item format version 2, codec/attribute-name-codes.ts): the
 * top-level names of its base items get small integer codes, so a stored value carries a one- or
 * two-byte code instead of each name's text. Kept in the table's meta database:
 *
 *   header key := 'n' 0x00
 *   header     := count:u32be first:f64be last:f64be   ; codes 0..count-1 exist; first/last:
 *                                                      ;   the stamps of codes 0 and count-1
 *   entry key  := 'n' 0x01 code:u16be
 *   entry      := stamp:f64be name:utf8
 *   stamp      := a random integer below 2^48 drawn when the code was assigned
 *
 * Crash safety: a name's code is written in the same write txn as the first value that uses it,
 * so no committed value ever carries a code its store does not define. Codes are dense, assigned
 * in order, and never change or disappear while the table exists (DeleteTable drops the meta
 * database with the items).
 *
 * Several processes share a folder, and a txn that assigned codes may abort (so does the recording
 * txn of an asynchronous commit, storage/store.ts writeAsync, whose changes, codes included, are
 * replayed later or recomputed after a conflict), so this process's memory can hold entries the
 * store does not have (tentative: assigned by a txn not known to have committed) or lack entries
 * other processes added. Two rules keep every use exact:
 * - readers use only `confirmed` entries (seen in a txn that writes nothing, so committed); for
 *   any other code they read the store in their own txn, which holds every code its values use;
 * - a write session reconciles memory with the store once, at its first use of the table (one
 *   get of the header): the stamps tell whether memory's last entry is the store's (random stamps
 *   make an aborted entry and another process's entry of the same code differ), else the entries
 *   past `confirmed` are reloaded. A re-created table starts a new dictionary (new first stamp).
 *
 * Store format (storage/store-format.ts): the txn that assigns a code also raises the store's
 * format to NAME_CODES_STORE_FORMAT, so an edgetable that checks the format but predates the
 * dictionary refuses the store rather than failing on a coded value.
 *
 * Bounded: at most MAX_CODED_NAMES codes of names up to MAX_CODED_NAME_LENGTH UTF-16 units; other
 * names stay inline, as do key attributes (so key-only decodes need no dictionary).
 */
import { randomInt } from 'node:crypto';
import type { NameDecoder, NameEncoder } from '../codec/attribute-name-codes.js';
import type { Database } from '../storage/database.js';
import type { Store } from '../storage/store.js';
import { NAME_CODES_STORE_FORMAT } from '../storage/store-format.js';
import type { ReadTxn, WriteTxn } from '../storage/txn.js';

export const MAX_CODED_NAMES = 1024;
export const MAX_CODED_NAME_LENGTH = 64;

const HEADER_KEY = new Uint8Array([0x6e, 0x00]);
const ENTRY_TAG = 0x01;
const utf8 = new TextEncoder();
const text = new TextDecoder();

type Header = { readonly count: number; readonly first: number; readonly last: number };

export class AttributeNames implements NameDecoder {
  private names: string[] = [];
  private stamps: number[] = [];
  private codes = new Map<string, number>();
  /** Entries below this are known committed; readers trust only these without reading the store. */
  private confirmed = 0;

  /** `tableId`: the table incarnation (TableId) whose dictionary this is. */
  constructor(
    private readonly store: Store,
    private readonly meta: Database,
    readonly keyNames: ReadonlySet<string>,
    readonly tableId = '',
  ) {}

  /** Codes known to this process (for tests and metrics). */
  get size(): number {
    return this.names.length;
  }

  /** The name of `code` if known committed in memory (readers may trust it without a txn). */
  knownName(code: number): string | undefined {
    return code < this.confirmed ? this.names[code] : undefined;
  }

  /** The name of `code` as the current txn (any kind) sees it; undefined when it has no such code. */
  nameOf(code: number): string | undefined {
    if (code < this.confirmed) return this.names[code];
    return this.store.read((txn) => {
      this.reconcile(txn, !isWriteTxn(txn));
      return this.names[code];
    });
  }

  /**
   * The dictionary as a write session uses it in `txn`: reconciles memory with the txn first, then
   * gives each eligible name its code (assigning new codes in `txn`) and names codes as `txn` sees
   * them. Valid until `txn` ends.
   */
  beginWrite(txn: WriteTxn): NameEncoder & NameDecoder {
    this.reconcile(txn, false);
    const nameOf = (code: number) => this.names[code];
    return { codeOf: (name) => this.codeIn(txn, name), knownName: nameOf, nameOf };
  }

  private codeIn(txn: WriteTxn, name: string): number | undefined {
    const known = this.codes.get(name);
    if (known !== undefined) return known;
    if (this.names.length >= MAX_CODED_NAMES || name.length > MAX_CODED_NAME_LENGTH || this.keyNames.has(name)) return undefined;
    const code = this.names.length;
    const stamp = randomInt(0, 2 ** 48 - 1);
    const encoded = utf8.encode(name);
    const entry = new Uint8Array(8 + encoded.length);
    new DataView(entry.buffer).setFloat64(0, stamp);
    entry.set(encoded, 8);
    if (this.store.format < NAME_CODES_STORE_FORMAT) this.store.raiseFormat(txn, NAME_CODES_STORE_FORMAT);
    txn.put(this.meta, entryKey(code), entry);
    writeHeader(txn, this.meta, { count: code + 1, first: code === 0 ? stamp : this.stamps[0]!, last: stamp });
    this.append(name, stamp);
    return code;
  }

  /**
   * Makes memory equal the dictionary `txn` sees (see the header). `committed`: the txn writes
   * nothing, so what it sees is committed and may be confirmed.
   */
  private reconcile(txn: ReadTxn, committed: boolean): void {
    const header = readHeader(txn, this.meta);
    const { count } = header;
    // A store never loses a committed code, and a txn begun later sees at least as much: fewer
    // codes than confirmed, or another first stamp, means the table was re-created.
    if (count < this.confirmed || (this.confirmed > 0 && header.first !== this.stamps[0])) this.reset();
    if (count === 0) this.truncate(0);
    else if (this.names.length >= count && this.stamps[count - 1] === header.last) this.truncate(count);
    else {
      this.truncate(this.confirmed);
      for (let code = this.confirmed; code < count; code++) {
        const raw = txn.get(this.meta, entryKey(code));
        if (raw === undefined) throw new Error(`attribute name dictionary: code ${code} of ${count} is missing`);
        const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
        this.append(text.decode(raw.subarray(8)), view.getFloat64(0));
      }
    }
    if (committed) this.confirmed = count;
  }

  private append(name: string, stamp: number): void {
    this.codes.set(name, this.names.length);
    this.names.push(name);
    this.stamps.push(stamp);
  }

  private truncate(count: number): void {
    for (let code = count; code < this.names.length; code++) this.codes.delete(this.names[code]!);
    this.names.length = count;
    this.stamps.length = count;
  }

  private reset(): void {
    this.names = [];
    this.stamps = [];
    this.codes = new Map();
    this.confirmed = 0;
  }
}

/**
 * The dictionary of the table whose meta database is `meta`: one per table incarnation (TableId)
 * per open store, kept across the Table objects a catalog reload makes, so a definition change
 * (split, index, TTL) keeps what this process knows. A re-created table gets a new one (and its
 * first stamp would tell it apart anyway).
 */
const dictionaries = new WeakMap<Database, AttributeNames>();

export function attributeNamesOf(store: Store, meta: Database, tableId: string, keyNames: readonly string[]): AttributeNames {
  const existing = dictionaries.get(meta);
  if (existing && existing.tableId === tableId) return existing;
  const created = new AttributeNames(store, meta, new Set(keyNames), tableId);
  dictionaries.set(meta, created);
  return created;
}

/**
 * Raises the store format for tables given codes before the format marker existed (edgetable
 * builds of 2026-11-30/12-01 wrote codes without it): one get per table, made only while the
 * store's format is below NAME_CODES_STORE_FORMAT. A write txn, idempotent, so processes opening
 * the folder together may all run it. False when nothing needed it.
 */
export function raiseFormatForExistingCodes(store: Store, metas: readonly Database[]): boolean {
  if (store.readOnly || store.format >= NAME_CODES_STORE_FORMAT) return false;
  if (!store.read((txn) => metas.some((meta) => readHeader(txn, meta).count > 0))) return false;
  store.write((txn) => store.raiseFormat(txn, NAME_CODES_STORE_FORMAT));
  return true;
}

function isWriteTxn(txn: ReadTxn): boolean {
  return typeof (txn as Partial<WriteTxn>).put === 'function';
}

function entryKey(code: number): Uint8Array {
  return new Uint8Array([0x6e, ENTRY_TAG, code >> 8, code & 0xff]);
}

function readHeader(txn: ReadTxn, meta: Database): Header {
  const raw = txn.get(meta, HEADER_KEY);
  if (raw === undefined) return { count: 0, first: 0, last: 0 };
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  return { count: view.getUint32(0), first: view.getFloat64(4), last: view.getFloat64(12) };
}

function writeHeader(txn: WriteTxn, meta: Database, header: Header): void {
  const value = new Uint8Array(20);
  const view = new DataView(value.buffer);
  view.setUint32(0, header.count);
  view.setFloat64(4, header.first);
  view.setFloat64(12, header.last);
  txn.put(meta, HEADER_KEY, value);
}
