/**
 * Builders of plain objects whose property names repeat from one object to the next (the items of
 * a table, their M values): a reader collects an object's names and values, then asks for the
 * shape of that name sequence (shapeOf), which it may keep to check the next object against. Once
 * a sequence has been seen SEEN_BEFORE_BUILD times, its builder is one object literal with those
 * names, compiled once (new Function): V8 allocates the
 * object with every property in place from the literal's boilerplate, where adding the properties
 * one by one walks a map transition per property through a megamorphic keyed store and regrows
 * the out-of-object property store (measured on a 12-name item: ~200 ns by adds, ~40 ns by
 * literal).
 *
 * The result equals the object the adds would build: the same own enumerable data properties, in
 * the same order (integer-like names first, ascending, as for any object), on Object.prototype.
 * Sequences that a literal would build differently are never compiled: "__proto__" (a literal
 * would set the prototype), repeated names. Names are written as JSON string literals, which are
 * JS string literals for every string, so no name can change the generated code.
 *
 * Bounded: SHAPE_SLOTS direct-mapped sequences of at most MAX_SHAPE_NAMES names of at most
 * MAX_SHAPE_NAME_LENGTH characters each; a collision replaces the slot's sequence. A compile costs
 * ~50-80 µs, so at most one happens per COMPILE_SPACING lookups: objects of endlessly varied
 * names, evicting each other, then spend under 0.1 µs each on compiles. Where code
 * generation from strings is disallowed (node --disallow-code-generation-from-strings), nothing
 * is compiled and every caller builds by adds.
 */

/** Builds the object of a shape from `values[at..at + count)`, in the shape's name order. */
export type ShapeBuilder = (values: readonly unknown[], at: number) => Record<string, unknown>;

/** A compiled name sequence: `build` makes objects with exactly `names`, in order. */
export type CompiledShape = { readonly names: readonly string[]; readonly build: ShapeBuilder };

export const MAX_SHAPE_NAMES = 64;
const MAX_SHAPE_NAME_LENGTH = 255;
const SHAPE_SLOTS = 2048;
/** A sequence is compiled on its second sighting: one-off objects never pay for a compile. */
const SEEN_BEFORE_BUILD = 2;

/**
 * A slot's sequence. Until compiled its names are rewritten in place when another sequence takes
 * the slot (a read of ever new sequences then allocates nothing here: allocating long-lived
 * arrays per object doubled the garbage collector's time); a compiled shape is never changed
 * (callers keep it) and gives its slot up only after REPLACE_AFTER_MISSES other sequences in a row.
 */
type Shape = {
  names: string[];
  /** undefined until compiled; null when the sequence is never compiled (see the header). */
  build: ShapeBuilder | undefined | null;
  seen: number;
  misses: number;
};
const REPLACE_AFTER_MISSES = 16;

const isCompiled = (shape: Shape): shape is CompiledShape & Shape => typeof shape.build === 'function';

const slots: (Shape | undefined)[] = new Array<Shape | undefined>(SHAPE_SLOTS).fill(undefined);
let compiling = true;
let compileSpacing = 1024;
/** Starts full, so the first sequence that repeats compiles at once. */
let lookupsSinceCompile = compileSpacing;

/** Sets the lookups between compiles (tests: 0 compiles every sequence on its second sighting). */
export function setCompileSpacing(lookups: number): void {
  compileSpacing = lookups;
  lookupsSinceCompile = lookups;
}

/**
 * Mixes one name into the hash of a name sequence (hashNames): its length, its first 32 chars and
 * its last. Only lookups that miss the reader's last shape hash names.
 */
function mixName(hash: number, name: string): number {
  const n = name.length;
  let h = Math.imul(hash ^ n ^ (name.charCodeAt(n - 1) << 16), 0x9e3779b1);
  for (let i = 0, stop = n < 32 ? n : 32; i < stop; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h;
}

/** The mixName hash of `names[at..at + count)`. */
export function hashNames(names: readonly string[], at: number, count: number): number {
  let hash = count;
  for (let i = 0; i < count; i++) hash = mixName(hash, names[at + i]!);
  return hash;
}

/**
 * The compiled shape of the object whose names are `names[at..at + count)` (at most
 * MAX_SHAPE_NAMES), `hash` the sequence's hashNames; undefined while the sequence is new or
 * cannot be compiled: the caller then adds the properties itself. A caller may keep a shape and
 * use it for any later object of the same names.
 */
export function shapeOf(names: readonly string[], at: number, count: number, hash: number): CompiledShape | undefined {
  const slot = (hash ^ (hash >>> 15)) & (SHAPE_SLOTS - 1);
  const shape = slots[slot];
  lookupsSinceCompile++;
  if (shape === undefined) {
    slots[slot] = { names: names.slice(at, at + count), build: undefined, seen: 1, misses: 0 };
    return undefined;
  }
  if (sameNames(shape.names, names, at, count)) {
    shape.misses = 0;
    if (shape.build === undefined && ++shape.seen >= SEEN_BEFORE_BUILD && lookupsSinceCompile >= compileSpacing) {
      lookupsSinceCompile = 0;
      shape.build = compile(shape.names);
    }
    return isCompiled(shape) ? shape : undefined;
  }
  if (isCompiled(shape)) {
    if (++shape.misses >= REPLACE_AFTER_MISSES) slots[slot] = { names: names.slice(at, at + count), build: undefined, seen: 1, misses: 0 };
    return undefined;
  }
  if (shape.names.length === count) for (let i = 0; i < count; i++) shape.names[i] = names[at + i]!;
  else shape.names = names.slice(at, at + count);
  shape.build = undefined;
  shape.seen = 1;
  return undefined;
}

function sameNames(cached: readonly string[], names: readonly string[], at: number, count: number): boolean {
  if (cached.length !== count) return false;
  for (let i = 0; i < count; i++) if (cached[i] !== names[at + i]) return false;
  return true;
}

function compilable(names: readonly string[]): boolean {
  if (!compiling || names.length > MAX_SHAPE_NAMES) return false;
  for (const name of names) if (name === '__proto__' || name.length > MAX_SHAPE_NAME_LENGTH) return false;
  return new Set(names).size === names.length;
}

function compile(names: readonly string[]): ShapeBuilder | null {
  if (!compilable(names)) return null;
  const members = names.map((name, i) => `${JSON.stringify(name)}: values[at + ${i}]`);
  try {
    return new Function('values', 'at', `return { ${members.join(', ')} };`) as ShapeBuilder;
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    compiling = false; // code generation from strings is disallowed in this process
    return null;
  }
}
