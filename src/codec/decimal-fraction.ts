/**
 * Canonical decimal strings <-> CBOR decimal fractions (RFC 8949 §3.4.4, tag 4: [exponent, mantissa],
 * value = mantissa * 10^exponent). The writer always emits the shortest form: the mantissa has no
 * trailing zeros (they move into the exponent) and is a JS number when it has at most 15 digits,
 * else a BigInt (cbor-x writes it as a 64-bit integer or a tag 2/3 bignum). The reader accepts any
 * exponent and mantissa, normalised or not, and returns the canonical string.
 */

/** Safe integers are stored as CBOR integers; this is true exactly when `canonical` is one. */
export function isSafeIntegerString(canonical: string): boolean {
  // A canonical integer has no leading zeros and no '+', so it equals String(Number(canonical))
  // whenever its magnitude is at most 2^53 - 1 (16 digits); the length check keeps Number() cheap.
  if (canonical.length > 17 || canonical.indexOf('.') >= 0) return false;
  return Number.isSafeInteger(Number(canonical));
}

/** Splits a canonical non-integer or large number into [exponent, mantissa]. */
export function toDecimalFraction(canonical: string): [number, number | bigint] {
  const negative = canonical.charCodeAt(0) === 45;
  const dot = canonical.indexOf('.');
  let digits: string;
  let exponent: number;
  if (dot < 0) {
    let end = canonical.length;
    while (end > 1 && canonical.charCodeAt(end - 1) === 48) end--;
    digits = canonical.slice(negative ? 1 : 0, end);
    exponent = canonical.length - end;
  } else {
    let first = negative ? 1 : 0;
    digits = canonical.slice(first, dot) + canonical.slice(dot + 1);
    exponent = dot + 1 - canonical.length;
    // "0.0012" -> "00012": leading zeros are not significant.
    first = 0;
    while (first < digits.length - 1 && digits.charCodeAt(first) === 48) first++;
    if (first > 0) digits = digits.slice(first);
  }
  if (digits.length <= 15) {
    const m = Number(digits);
    return [exponent, negative ? -m : m];
  }
  return [exponent, BigInt(negative ? '-' + digits : digits)];
}

/** The canonical string of mantissa * 10^exponent. */
export function fromDecimalFraction(exponent: number, mantissa: number | bigint): string {
  if (typeof mantissa === 'number' && !Number.isSafeInteger(mantissa)) {
    throw new RangeError('item value: decimal fraction mantissa is not an integer');
  }
  if (!Number.isSafeInteger(exponent)) throw new RangeError('item value: bad decimal fraction exponent');
  let digits = String(mantissa);
  const negative = digits.charCodeAt(0) === 45;
  if (negative) digits = digits.slice(1);
  if (digits === '0') return '0';
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  if (end < digits.length) {
    exponent += digits.length - end;
    digits = digits.slice(0, end);
  }
  const point = digits.length + exponent;
  let text: string;
  if (exponent >= 0) text = exponent === 0 ? digits : digits + '0'.repeat(exponent);
  else if (point <= 0) text = '0.' + '0'.repeat(-point) + digits;
  else text = digits.slice(0, point) + '.' + digits.slice(point);
  return negative ? '-' + text : text;
}
