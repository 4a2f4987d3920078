/**
 * DynamoDB numbers: parsing, canonical form, exact comparison and arithmetic, stored size
 * (../shared/spec/DYNAMODB.md §1.2, §1.5, §2).
 *
 * Canonical form (what `parseNumber` returns, what is stored and returned, what every other
 * function here takes):
 *
 *   canonical ::= '0' | [ '-' ] magnitude
 *   magnitude ::= int-part [ '.' frac-part ]
 *   int-part  ::= '0' | nonzero-digit { digit }
 *   frac-part ::= { digit } nonzero-digit
 *
 * No exponent, no '+', no leading zeros in the integer part, no trailing zeros in the fraction,
 * no negative zero. Each value has exactly one canonical string, so two canonical numbers are
 * numerically equal iff their strings are equal.
 *
 * Decomposition (`decomposeNumber`): value = (negative ? -1 : 1) * 0.d1d2...dn * 10^exponent,
 * where `digits` = d1..dn has no leading or trailing zeros. Zero is { false, '', 0 }. The
 * scientific exponent of the leading digit is `exponent - 1` and must lie in -130..125.
 */
import { invalid, type ValidationException } from './errors.js';
import { MAX_NUMBER_DIGITS, MAX_NUMBER_EXPONENT, MIN_NUMBER_EXPONENT } from './limits.js';
import type { ValueLayer } from './value-layer.js';

const PRECISION_MESSAGE = 'Attempting to store more than 38 significant digits in a Number';
const OVERFLOW_MESSAGE = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
const UNDERFLOW_MESSAGE = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';
export const SYNTAX_MESSAGE = 'The parameter cannot be converted to a numeric value';

const DOT = 0x2e;
const MINUS = 0x2d;
const PLUS = 0x2b;
const ZERO = 0x30;
const NINE = 0x39;

export type DecomposedNumber = { negative: boolean; digits: string; exponent: number };

/**
 * Validates a number literal and returns its canonical form.
 * Accepts `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`. Range errors are
 * reported before precision errors, as DynamoDB does when both apply. Zero is range-checked by
 * the exponent it is written with, as BigDecimal sees it (`0e126` overflows, `0e-131`
 * underflows); an exponent past a 64-bit integer cannot be converted at all. `layer` picks the
 * wording and exponent reading of the checker the operation runs (value-layer.ts).
 * @throws ValidationException with DynamoDB's text.
 */
export function parseNumber(text: string, layer: ValueLayer = 'current'): string {
  // Fast path: an already-canonical number of at most 38 digits (what sensors and most callers
  // send: "42", "-67", "21.37") is returned as is, without building a new string.
  if (isShortCanonical(text)) return text;

  const len = text.length;
  let i = 0;
  let negative = false;
  const first = text.charCodeAt(0);
  if (first === MINUS || first === PLUS) {
    negative = first === MINUS;
    i = 1;
  }
  const intStart = i;
  while (i < len && isDigit(text.charCodeAt(i))) i++;
  const intEnd = i;
  let fracStart = i;
  let fracEnd = i;
  if (i < len && text.charCodeAt(i) === DOT) {
    i++;
    fracStart = i;
    while (i < len && isDigit(text.charCodeAt(i))) i++;
    fracEnd = i;
  }
  if (intEnd === intStart && fracEnd === fracStart) throw notNumeric(text, layer);

  // Exact up to 15 digits; past that only its sign and size matter (far outside every range).
  let exp = 0;
  if (i < len && (text.charCodeAt(i) | 0x20) === 0x65 /* e or E */) {
    i++;
    let expNegative = false;
    const sign = text.charCodeAt(i);
    if (sign === MINUS || sign === PLUS) {
      expNegative = sign === MINUS;
      i++;
    }
    const expStart = i;
    while (i < len && isDigit(text.charCodeAt(i))) i++;
    if (i === expStart) throw notNumeric(text, layer);
    let s = expStart;
    while (s < i - 1 && text.charCodeAt(s) === ZERO) s++;
    if (i - s > 15) {
      const big = BigInt((expNegative ? '-' : '') + text.slice(s, i));
      if (big > INT64_MAX || big < INT64_MIN) throw notNumeric(text, layer);
      exp = Number(big);
    } else {
      exp = (expNegative ? -1 : 1) * Number(text.slice(s, i));
    }
  }
  if (i !== len) throw notNumeric(text, layer);

  const all = text.slice(intStart, intEnd) + text.slice(fracStart, fracEnd);
  const intLen = intEnd - intStart;
  const fracLen = fracEnd - fracStart;
  let lead = 0;
  while (lead < all.length && all.charCodeAt(lead) === ZERO) lead++;
  const zero = lead === all.length;
  // BigDecimal's precision - scale: the position of the leading digit (zero's one digit counts).
  let position = zero ? 1 - fracLen + exp : intLen - lead + exp;
  if (layer === 'older') {
    // BigDecimal refuses an exponent or a scale past a 32-bit integer, and computes
    // precision - scale in 32 bits, so 1e2147483647 wraps to a tiny magnitude.
    if (!isInt32(exp) || !isInt32(fracLen - exp)) throw notNumeric(text, layer);
    position |= 0;
  }
  if (zero) {
    checkRange(position);
    return '0';
  }
  let last = all.length - 1;
  while (all.charCodeAt(last) === ZERO) last--;
  return finish(negative, all.slice(lead, last + 1), position, PRECISION_MESSAGE);
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

function isInt32(n: number): boolean {
  return n === (n | 0);
}

/** A literal that is no number: the current layer echoes it; the older one echoes all but "". */
function notNumeric(text: string, layer: ValueLayer): ValidationException {
  return invalid(layer === 'older' && text === '' ? SYNTAX_MESSAGE : `${SYNTAX_MESSAGE}: ${text}`);
}

/** A parsed literal's range check: `position` is its leading digit's place (1 for 1..9). */
function checkRange(position: number): void {
  if (position - 1 > MAX_NUMBER_EXPONENT) throw invalid(OVERFLOW_MESSAGE);
  if (position - 1 < MIN_NUMBER_EXPONENT) throw invalid(UNDERFLOW_MESSAGE);
}

/** Splits a canonical number into sign, significant digits and exponent (see file comment). */
export function decomposeNumber(canonical: string): DecomposedNumber {
  const negative = canonical.charCodeAt(0) === MINUS;
  const start = negative ? 1 : 0;
  const dot = canonical.indexOf('.', start);
  if (canonical.charCodeAt(start) === ZERO) {
    if (dot < 0) return { negative: false, digits: '', exponent: 0 };
    let s = dot + 1;
    while (canonical.charCodeAt(s) === ZERO) s++;
    return { negative, digits: canonical.slice(s), exponent: dot + 1 - s };
  }
  if (dot >= 0) {
    return { negative, digits: canonical.slice(start, dot) + canonical.slice(dot + 1), exponent: dot - start };
  }
  let end = canonical.length;
  while (canonical.charCodeAt(end - 1) === ZERO) end--;
  return { negative, digits: canonical.slice(start, end), exponent: canonical.length - start };
}

/** Exact numeric comparison of two canonical numbers. Does not allocate. */
export function compareNumbers(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  const aNeg = a.charCodeAt(0) === MINUS;
  const bNeg = b.charCodeAt(0) === MINUS;
  if (aNeg !== bNeg) return aNeg ? -1 : 1;
  const m = compareMagnitudes(a, aNeg ? 1 : 0, b, bNeg ? 1 : 0);
  return aNeg ? (-m as -1 | 0 | 1) : m;
}

/** a + b, exact, canonical; the result is held to the stored-number limits. */
export function addNumbers(a: string, b: string): string {
  return combine(a, b, false);
}

/** a - b, exact, canonical; the result is held to the stored-number limits. */
export function subtractNumbers(a: string, b: string): string {
  return combine(a, b, true);
}

/**
 * Bytes a canonical number counts toward item size (§1.5, measured on live DynamoDB):
 * 1 + ceil(i/2) + ceil(f/2) + (negative ? 1 : 0), where i and f are the integer-part and
 * fraction-part digits of the significant-digit run (leading and trailing zeros dropped).
 */
export function numberSize(canonical: string): number {
  const negative = canonical.charCodeAt(0) === MINUS;
  const start = negative ? 1 : 0;
  const len = canonical.length;
  let dot = start;
  while (dot < len && canonical.charCodeAt(dot) !== DOT) dot++;
  let i: number;
  let f: number;
  if (canonical.charCodeAt(start) === ZERO) {
    if (dot === len) return 1; // zero
    let s = dot + 1;
    while (canonical.charCodeAt(s) === ZERO) s++;
    i = 0;
    f = len - s;
  } else if (dot < len) {
    i = dot - start;
    f = len - dot - 1;
  } else {
    let end = len;
    while (canonical.charCodeAt(end - 1) === ZERO) end--;
    i = end - start;
    f = 0;
  }
  return 1 + ((i + 1) >> 1) + ((f + 1) >> 1) + (negative ? 1 : 0);
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

/**
 * Whether `text` is already canonical with at most 38 digits, so parseNumber returns it unchanged:
 * `0`; or an optional '-', an integer part without a leading zero (or '0' before a point), and
 * optionally '.' and a fraction that does not end in '0'. Such a number has at most 38
 * significant digits and its leading digit's place lies between -37 and 38, inside every limit.
 */
function isShortCanonical(text: string): boolean {
  const len = text.length;
  const start = text.charCodeAt(0) === MINUS ? 1 : 0;
  const first = text.charCodeAt(start);
  if (!isDigit(first)) return false; // also "" and "-"
  let i = start + 1;
  if (first !== ZERO) while (i < len && isDigit(text.charCodeAt(i))) i++;
  if (i === len) return first !== ZERO ? len - start <= MAX_NUMBER_DIGITS : len === 1; // an integer; "-0" is not canonical
  // Digits = len - start - 1 (the point), at most 38; a point needs a fraction after it.
  if (text.charCodeAt(i) !== DOT || i === len - 1 || len - start - 1 > MAX_NUMBER_DIGITS) return false;
  for (i++; i < len; i++) {
    if (!isDigit(text.charCodeAt(i))) return false;
  }
  return text.charCodeAt(len - 1) !== ZERO;
}

/**
 * Checks limits and formats `(negative, digits, exponent)` (digits without leading/trailing
 * zeros, non-empty) as a canonical string. `precisionMessage` differs for arithmetic results.
 */
function finish(negative: boolean, digits: string, exponent: number, precisionMessage: string): string {
  const scientific = exponent - 1;
  if (scientific > MAX_NUMBER_EXPONENT) throw invalid(OVERFLOW_MESSAGE);
  if (scientific < MIN_NUMBER_EXPONENT) throw invalid(UNDERFLOW_MESSAGE);
  if (digits.length > MAX_NUMBER_DIGITS) throw invalid(precisionMessage);
  let out: string;
  if (exponent <= 0) out = '0.' + '0'.repeat(-exponent) + digits;
  else if (exponent >= digits.length) out = digits + '0'.repeat(exponent - digits.length);
  else out = digits.slice(0, exponent) + '.' + digits.slice(exponent);
  return negative ? '-' + out : out;
}

/** Compares |a| and |b| given the offsets where their magnitudes start. */
function compareMagnitudes(a: string, ai: number, b: string, bi: number): -1 | 0 | 1 {
  const aLen = a.length;
  const bLen = b.length;
  let aDot = ai;
  while (aDot < aLen && a.charCodeAt(aDot) !== DOT) aDot++;
  let bDot = bi;
  while (bDot < bLen && b.charCodeAt(bDot) !== DOT) bDot++;
  // Integer parts carry no leading zeros ('0' only for |x| < 1), so longer means larger.
  const aInt = aDot - ai;
  const bInt = bDot - bi;
  if (aInt !== bInt) return aInt < bInt ? -1 : 1;
  // Same integer length: the points line up, and digit-wise order is numeric order; with no
  // trailing fraction zeros, a strict prefix is the smaller value.
  while (ai < aLen && bi < bLen) {
    const x = a.charCodeAt(ai++);
    const y = b.charCodeAt(bi++);
    if (x !== y) return x < y ? -1 : 1;
  }
  if (ai < aLen) return 1;
  if (bi < bLen) return -1;
  return 0;
}

/** Largest magnitude added with plain doubles: sums stay far below 2^53. */
const FAST_INTEGER_CHARS = 15;

function isSmallInteger(s: string): boolean {
  return s.length <= FAST_INTEGER_CHARS && s.indexOf('.') < 0;
}

function combine(a: string, b: string, subtract: boolean): string {
  if (isSmallInteger(a) && isSmallInteger(b)) {
    const r = subtract ? Number(a) - Number(b) : Number(a) + Number(b);
    return r === 0 ? '0' : String(r);
  }
  const x = toScaled(a);
  const y = toScaled(b);
  let xc = x.coefficient;
  let yc = y.coefficient;
  const scale = x.scale > y.scale ? x.scale : y.scale;
  if (x.scale < scale) xc *= 10n ** BigInt(scale - x.scale);
  if (y.scale < scale) yc *= 10n ** BigInt(scale - y.scale);
  const sum = subtract ? xc - yc : xc + yc;
  if (sum === 0n) return '0';
  const negative = sum < 0n;
  const all = (negative ? -sum : sum).toString();
  let last = all.length - 1;
  while (all.charCodeAt(last) === ZERO) last--;
  // BigInt.toString has no leading zeros; value = all * 10^-scale.
  return finish(negative, all.slice(0, last + 1), all.length - scale, OVERFLOW_MESSAGE);
}

/** canonical = coefficient * 10^-scale */
function toScaled(canonical: string): { coefficient: bigint; scale: number } {
  const negative = canonical.charCodeAt(0) === MINUS;
  const body = negative ? canonical.slice(1) : canonical;
  const dot = body.indexOf('.');
  const digits = dot < 0 ? body : body.slice(0, dot) + body.slice(dot + 1);
  const magnitude = BigInt(digits);
  return { coefficient: negative ? -magnitude : magnitude, scale: dot < 0 ? 0 : body.length - dot - 1 };
}
