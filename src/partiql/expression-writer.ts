/**
 * Writes PartiQL conditions, operands and paths as DynamoDB expression-API text, collecting the
 * `#n` names and `:v` values they use, so a compiled statement is an ordinary request that the
 * expression pipeline (src/expr/) parses, validates and evaluates like any other.
 * Parameters are bound here: `?` number i becomes the request's Parameters[i].
 */
import type { WireAttributeValue } from '../model/attribute-value.js';
import { ValidationException } from '../model/errors.js';
import type { Condition, Operand, Path, Value } from './ast.js';
import { checkPartiqlNumber } from './read-number.js';

/** The types the ordering operators compare (BOOL, NULL, lists, maps and sets have no order). */
const ORDERED_TYPES = new Set(['S', 'N', 'B']);

export class ExpressionWriter {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, WireAttributeValue> = {};
  private readonly nameOf = new Map<string, string>();
  private valueCount = 0;

  constructor(private readonly parameters: readonly unknown[]) {}

  /** ExpressionAttributeNames / ExpressionAttributeValues for the request, when any were used. */
  attributes(): { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, WireAttributeValue> } {
    return {
      ...(this.nameOf.size > 0 ? { ExpressionAttributeNames: this.names } : {}),
      ...(this.valueCount > 0 ? { ExpressionAttributeValues: this.values } : {}),
    };
  }

  name(attribute: string): string {
    let ref = this.nameOf.get(attribute);
    if (!ref) {
      ref = `#n${this.nameOf.size}`;
      this.nameOf.set(attribute, ref);
      this.names[ref] = attribute;
    }
    return ref;
  }

  path(path: Path): string {
    return path.segments.map((s, i) => (typeof s === 'number' ? `[${s}]` : `${i > 0 ? '.' : ''}${this.name(s)}`)).join('');
  }

  value(v: WireAttributeValue): string {
    const ref = `:v${this.valueCount++}`;
    this.values[ref] = v;
    return ref;
  }

  operand(o: Operand): string {
    switch (o.kind) {
      case 'path':
        return this.path(o);
      case 'call':
        return `${o.name}(${o.args.map((a) => this.operand(a)).join(', ')})`;
      case 'arithmetic':
        return `${this.operand(o.left)} ${o.op} ${this.operand(o.right)}`;
      default:
        return this.value(this.bind(o));
    }
  }

  condition(c: Condition): string {
    switch (c.kind) {
      case 'and':
      case 'or':
        return `(${this.condition(c.left)} ${c.kind.toUpperCase()} ${this.condition(c.right)})`;
      case 'not':
        return `(NOT ${this.condition(c.operand)})`;
      case 'compare': {
        const side = c.op === '=' || c.op === '<>' ? (o: Operand) => this.operand(o) : (o: Operand) => this.orderedOperand(o, c.op);
        return `${side(c.left)} ${c.op} ${side(c.right)}`;
      }
      case 'between':
        return `${this.orderedOperand(c.operand, 'BETWEEN')} BETWEEN ${this.orderedOperand(c.low, 'BETWEEN')} AND ${this.orderedOperand(c.high, 'BETWEEN')}`;
      case 'in':
        return `${this.operand(c.operand)} IN (${c.list.map((o) => this.operand(o)).join(', ')})`;
      case 'is': {
        const path = this.path(c.operand);
        if (c.what === 'MISSING') return c.negated ? `attribute_exists(${path})` : `attribute_not_exists(${path})`;
        const test = `attribute_type(${path}, ${this.value({ S: c.what })})`;
        return c.negated ? `(NOT ${test})` : test;
      }
      case 'function':
        return `${c.name}(${c.args.map((a) => this.operand(a)).join(', ')})`;
    }
  }

  /**
   * An operand of an ordering operator (<, <=, >, >=, BETWEEN). A value of a type with no order
   * is refused when the statement is compiled, whatever the item holds, as DynamoDB does; a
   * path is compared when the item is read.
   */
  private orderedOperand(o: Operand, operator: string): string {
    if (o.kind === 'path' || o.kind === 'call' || o.kind === 'arithmetic') return this.operand(o);
    const bound = this.bind(o);
    const type = Object.keys(bound)[0] ?? '';
    if (!ORDERED_TYPES.has(type)) throw new ValidationException(`Incorrect operand type for operator or function; operator or function: ${operator}, operand type: ${type}`);
    return this.value(bound);
  }

  /**
   * A value as an AttributeValue: literals converted, parameters looked up (check-parameters.ts
   * checked them). A number literal outside DynamoDB's range or precision is refused with
   * DynamoDB's text and where it sits in the value: ` under root`, ` under root.x`, ` under root[1]`.
   */
  bind(v: Value, path = 'root'): WireAttributeValue {
    switch (v.kind) {
      case 'parameter':
        return this.parameters[v.index] as WireAttributeValue;
      case 'string':
        return { S: v.value };
      case 'number':
        return { N: checkedLiteral(v.value, path) };
      case 'boolean':
        return { BOOL: v.value };
      case 'null':
        return { NULL: true };
      case 'list':
        return { L: v.items.map((item, i) => this.bind(item, `${path}[${i}]`)) };
      case 'tuple':
        return { M: Object.fromEntries(v.entries.map((e) => [e.key, this.bind(e.value, `${path}.${e.key}`)])) };
      case 'bag':
        return bagToSet(v.items.map((item) => this.bind(item, path)));
    }
  }

  /** An INSERT's item: each attribute's value is a root of its own, as DynamoDB names paths. */
  bindItem(v: Value): WireAttributeValue {
    if (v.kind !== 'tuple') return this.bind(v);
    return { M: Object.fromEntries(v.entries.map((e) => [e.key, this.bind(e.value)])) };
  }
}

function checkedLiteral(text: string, path: string): string {
  try {
    checkPartiqlNumber(text);
    return text;
  } catch (error) {
    if (error instanceof ValidationException) throw new ValidationException(`${error.message} under ${path}`);
    throw error;
  }
}

/** `<< ... >>` is a set: all strings (SS), all numbers (NS) or all binaries (BS). */
function bagToSet(items: readonly WireAttributeValue[]): WireAttributeValue {
  for (const type of ['S', 'N', 'B'] as const) {
    if (items.length > 0 && items.every((i) => type in i)) {
      const members = items.map((i) => (i as Record<string, unknown>)[type]);
      return { [`${type}S`]: members } as WireAttributeValue;
    }
  }
  throw new ValidationException('Unsupported type passed for set: a set must hold one or more strings, numbers or binaries of one type');
}
