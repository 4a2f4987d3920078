/**
 * Attribute-name codes (item format version 2): a top-level attribute name of a base item may be
 * stored as a small unsigned integer that the table's name dictionary (table/attribute-names.ts)
 * maps to the name, instead of the name's text. In the sensor workload the names are about half
 * of every stored value.
 *
 *   item      = map of ( name value )*              ; item-value.ts
 *   name      = text string                         ; the name itself (format version 1)
 *             | unsigned integer                    ; a code of the table's dictionary (version 2)
 *
 * Each name carries its own marker (CBOR major type 3 or 0), so a value written before the
 * dictionary (every name inline) reads unchanged, a record may mix both, and a name that looks
 * like a code ("7") is text and never confused with code 7. Only top-level names are coded;
 * names inside M values are always text. The writer leaves inline any name the dictionary does
 * not give a code (key attributes, long names, names past the dictionary's bound).
 *
 * Key attributes are always inline, so a decoder that selects only key attributes (a
 * LastEvaluatedKey, a sort key for ordering) needs no dictionary; every other decode of a base
 * record must be given the table's dictionary.
 */

/** Gives the writer a name's code, or undefined to write the name inline. */
export interface NameEncoder {
  codeOf(name: string): number | undefined;
}

/** Gives a reader the name of a code. */
export interface NameDecoder {
  /** The name as already known in memory, or undefined; never reads the store. */
  knownName(code: number): string | undefined;
  /**
   * The name, reading the store in the caller's txn when memory lacks it (a code another process
   * added); undefined when the store has no such code (a damaged value). A read may end the
   * validity of views the caller got from that txn (storage/txn.ts), so a reader copies what it
   * still needs first; this happens at most once per new code per process.
   */
  nameOf(code: number): string | undefined;
}
