/**
 * How DynamoDB's PartiQL reads a number (a `?` parameter's N, or a literal), before DynamoDB's own
 * number rules (model/number.ts) apply: as Java's BigDecimal reads a string.
 *
 *   number   ::= [+-]? ( digits [ '.' digits? ] | '.' digits ) ( [eE] [+-]? digits )?
 *
 * A number cannot be converted at all when it is outside that grammar, when its exponent's
 * magnitude does not fit a 32-bit integer, or when its scale (digits after the point less the
 * exponent) does not. Past that, the magnitude check takes precision minus scale in 32-bit
 * arithmetic, which wraps: 1e2147483647 comes out as an underflow, not an overflow (captured from
 * DynamoDB, paritysuite tier3 partiqlParameterNumbers).
 */
import { ValidationException } from '../model/errors.js';
import { parseNumber } from '../model/number.js';

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);
const GRAMMAR = /^[+-]?(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?)([0-9]+))?$/;

/** DynamoDB's range texts (model/number.ts raises the same for the expression API). */
export const NUMBER_OVERFLOW = 'Number overflow. Attempting to store a number with magnitude larger than supported range';
export const NUMBER_UNDERFLOW = 'Number underflow. Attempting to store a number with magnitude smaller than supported range';

export class UnconvertibleNumber extends Error {}

/**
 * Checks `text` as DynamoDB's PartiQL does; returns nothing when it is a number DynamoDB stores.
 * @throws UnconvertibleNumber when it cannot be read at all (callers word this themselves).
 * @throws ValidationException with DynamoDB's range or precision text otherwise.
 */
export function checkPartiqlNumber(text: string): void {
  const m = GRAMMAR.exec(text);
  if (!m) throw new UnconvertibleNumber(text);
  const digits = (m[1] ?? '') + (m[2] ?? m[3] ?? '');
  const fractionDigits = (m[2] ?? m[3] ?? '').length;
  const exponentDigits = (m[5] ?? '0').replace(/^0+(?=.)/, '');
  const exponentMagnitude = exponentDigits.length > 10 ? Infinity : Number(exponentDigits);
  if (exponentMagnitude > INT32_MAX) throw new UnconvertibleNumber(text);
  const scale = fractionDigits - (m[4] === '-' ? -exponentMagnitude : exponentMagnitude);
  if (scale > INT32_MAX || scale < INT32_MIN) throw new UnconvertibleNumber(text);
  const significant = digits.replace(/^0+/, '');
  if (significant.length > 0) {
    const adjusted = significant.length - scale;
    const wrapped = adjusted | 0;
    if (wrapped !== adjusted) throw new ValidationException(wrapped < 0 ? NUMBER_UNDERFLOW : NUMBER_OVERFLOW);
  }
  parseNumber(text);
}
