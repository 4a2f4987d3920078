/**
 * What a Store knows of its format (store-format.ts) and text-values marker (text-values.ts), and
 * the write sequence (write-sequence.ts) that tells it when another process may have changed
 * them: every changing write txn bumps the sequence, and one that finds a value other than the
 * one this process last committed follows another process's commit and reads the markers again.
 */
import type { Database } from './database.js';
import { StorageError } from './storage-error.js';
import { STORE_FORMAT_KEY, StoreFormatError, TEXT_VALUES_KEY, TEXT_VALUES_STORE_FORMAT, decodeStoreFormat, encodeStoreFormat, isSupportedStoreFormat } from './store-format.js';
import { TEXT_READS_SUPPORTED, TextValues, isTextValue } from './text-values.js';
import type { LmdbWriteTxn, WriteTxn } from './txn.js';
import { WRITE_SEQUENCE_KEY, nextWriteSequence } from './write-sequence.js';

export class FormatState {
  private storeFormat: number;
  /** The text-values marker as read at open or committed by this process since. */
  private textValuesMarked: boolean;
  /**
   * The write sequence as this process's last committed changing txn left it. Set only after a
   * commit: an aborted txn's next value may well be the one another process commits.
   */
  private knownSequence: Uint8Array | undefined = undefined;
  /** Scratch readers of text values lent to txns (text-values.ts); a few, reused. */
  private readonly textPool: TextValues[] = [];

  constructor(
    private readonly path: string,
    private readonly catalog: Database,
    opened: { readonly format: number; readonly textValues: boolean },
  ) {
    this.storeFormat = opened.format;
    this.textValuesMarked = opened.textValues;
  }

  get format(): number {
    return this.storeFormat;
  }

  /** See Store.raiseFormat. */
  raiseFormat(txn: WriteTxn, version: number): void {
    if (!isSupportedStoreFormat(version)) throw new StorageError('INVALID', `store format ${version} is not one this build writes`);
    const stored = decodeStoreFormat(txn.get(this.catalog, STORE_FORMAT_KEY));
    if (!isSupportedStoreFormat(stored)) throw new StoreFormatError(this.path, stored);
    if (stored >= version) {
      // Raised by another process since this one opened (or earlier in this txn): take it in.
      txn.afterCommit(() => {
        this.storeFormat = Math.max(this.storeFormat, stored);
      });
      return;
    }
    txn.put(this.catalog, STORE_FORMAT_KEY, encodeStoreFormat(version));
    txn.afterCommit(() => {
      this.storeFormat = Math.max(this.storeFormat, version);
    });
  }

  /** Whether text databases are read as text: the store holds the marker and this host reads text back byte for byte. */
  get textReads(): boolean {
    return this.textValuesMarked && TEXT_READS_SUPPORTED;
  }

  get hasTextValuesMarker(): boolean {
    return this.textValuesMarked;
  }

  /** See Store.markTextValues. */
  markTextValues(txn: WriteTxn): void {
    this.raiseFormat(txn, TEXT_VALUES_STORE_FORMAT);
    txn.put(this.catalog, TEXT_VALUES_KEY, new Uint8Array([1]));
    txn.afterCommit(() => {
      this.textValuesMarked = true;
    });
  }

  /**
   * A put into a text database: a text value raises the store format first (builds before format
   * 3 would misread it), and once the marker promises text values only, anything else is refused.
   */
  beforeTextPut(txn: LmdbWriteTxn, db: Database, value: Uint8Array): void {
    if (!isTextValue(value)) {
      if (this.textValuesMarked) throw new StorageError('INVALID', `put into ${db.name}: the value is not a text value (even length, ending in two zero bytes), which this store promises its text databases hold`);
      return;
    }
    if (this.storeFormat < TEXT_VALUES_STORE_FORMAT) this.raiseFormat(txn, TEXT_VALUES_STORE_FORMAT);
  }

  takeTextValues(): TextValues {
    return this.textPool.pop() ?? new TextValues();
  }

  giveTextValues(reader: TextValues): void {
    if (this.textPool.length < 8) this.textPool.push(reader);
  }

  /**
   * The last change of every changing write txn (write-sequence.ts); not a counted put for the
   * fault seam. Checks the store format first if another process wrote since (checkSince).
   * Returns the new sequence, which the caller reports with `committed` once the txn committed.
   */
  bumpWriteSequence(txn: LmdbWriteTxn): Uint8Array {
    const main = this.catalog.handle!;
    let next: Uint8Array;
    try {
      const current = txn.native.getBinary(main, WRITE_SEQUENCE_KEY) ?? undefined;
      this.checkSince(txn, current);
      next = nextWriteSequence(current);
      txn.native.putBinary(main, WRITE_SEQUENCE_KEY, next);
    } catch (err) {
      if (err instanceof StoreFormatError) throw err;
      throw txn.failed(err, 'bump the write sequence');
    }
    return next;
  }

  /** A changing txn of this process committed with write sequence `sequence`. */
  committed(sequence: Uint8Array): void {
    this.knownSequence = sequence;
  }

  /**
   * A changing write txn that sees a write sequence other than the last one this process saw
   * follows another process's commit, which may have raised the store format: re-read it, and
   * refuse (the txn aborts, nothing is written) a format this build does not know. One byte
   * comparison when no other process wrote; one get more when one did.
   */
  checkSince(txn: LmdbWriteTxn, sequence: Uint8Array | undefined): void {
    const known = this.knownSequence;
    if (known !== undefined && sequence !== undefined && Buffer.compare(known, sequence) === 0) return;
    const format = decodeStoreFormat(txn.native.getBinary(this.catalog.handle!, STORE_FORMAT_KEY));
    if (!isSupportedStoreFormat(format)) throw new StoreFormatError(this.path, format);
    // Raised by another process (committed: it never goes down), so `format` reports it at once.
    if (format > this.storeFormat) this.storeFormat = format;
    // Another process marked the text values (committed: this txn sees it); the marker never goes.
    if (!this.textValuesMarked && txn.native.getBinary(this.catalog.handle!, TEXT_VALUES_KEY) !== null) this.textValuesMarked = true;
  }
}
