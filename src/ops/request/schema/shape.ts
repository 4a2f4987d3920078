/**
 * Request shapes as data (STYLE.md habit 6): each operation's members with their JSON type and
 * Coral constraints, in DynamoDB's member order. `check-request.ts` walks a request against its
 * shape in one pass. A shape is a frozen, `kind`-tagged value; adding a member or an operation is
 * one entry in `schemas.ts`.
 */

/** Constraints every member may carry. */
type Common = {
  /** Absent or null: `Value null at '<member>' failed to satisfy constraint: Member must not be null`. */
  readonly notNull?: boolean;
  /**
   * Top-level only: absent is reported alone, before any constraint, with this text (DynamoDB's
   * own words for its required parameters), e.g. "The parameter 'TableName' is required but was
   * not provided."
   */
  readonly required?: string;
};

export type StringShape = Common & {
  readonly kind: 'string';
  readonly pattern?: { readonly source: string; readonly test: RegExp };
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly enum?: readonly string[];
};
/**
 * A table name, or (`arn`) a table ARN, which skips the name constraints. `dataPlane`: the
 * data-plane member (1..1024 chars, then at most 255 of the name pattern; request-checks.ts
 * checkDataPlaneName) instead of CreateTable's 3..255 chars of the pattern.
 */
export type TableNameShape = Common & { readonly kind: 'tableName'; readonly arn: boolean; readonly dataPlane?: boolean };
export type BooleanShape = Common & { readonly kind: 'boolean' };
export type NumberShape = Common & { readonly kind: 'integer' | 'long'; readonly min?: number; readonly max?: number };
export type ListShape = Common & { readonly kind: 'list'; readonly member: Shape; readonly minLength?: number; readonly maxLength?: number };
/** `tableNameKeys`: the keys are table names (RequestItems), one error on the whole map (request-item-tables.ts). */
export type MapShape = Common & { readonly kind: 'map'; readonly value: Shape; readonly minLength?: number; readonly maxLength?: number; readonly tableNameKeys?: boolean };
/**
 * `javaName`: the model class Coral names when it prints the structure inside a constraint message
 * (`KeySchemaElement(attributeName=a, keyType=HASH)`); unnamed structures print as JSON.
 */
export type StructureShape = Common & { readonly kind: 'structure'; readonly members: Members; readonly javaName?: string };
/** One wire AttributeValue (`{"S": "x"}`); its inside is checked by model/wire-shape.ts. */
export type AttributeValueShape = Common & { readonly kind: 'attributeValue' };
/** A map of attribute name to AttributeValue (Item, Key, ExclusiveStartKey). */
export type AttributeMapShape = Common & { readonly kind: 'attributeMap' };

export type Shape =
  | StringShape
  | TableNameShape
  | BooleanShape
  | NumberShape
  | ListShape
  | MapShape
  | StructureShape
  | AttributeValueShape
  | AttributeMapShape;

export type ShapeKind = Shape['kind'];

/** Members in DynamoDB's order (object insertion order). */
export type Members = Readonly<Record<string, Shape>>;

export const NAME_PATTERN = { source: '[a-zA-Z0-9_.-]+', test: /^[a-zA-Z0-9_.-]+$/ } as const;

// Builders: short, so schemas read as the API reference's member tables.
export const str = (c: Omit<StringShape, 'kind'> = {}): StringShape => Object.freeze({ kind: 'string', ...c });
export const enumOf = (values: readonly string[], c: Omit<StringShape, 'kind' | 'enum'> = {}): StringShape => str({ ...c, enum: values });
export const bool = (c: Common = {}): BooleanShape => Object.freeze({ kind: 'boolean', ...c });
export const int = (c: Omit<NumberShape, 'kind'> = {}): NumberShape => Object.freeze({ kind: 'integer', ...c });
export const long = (c: Omit<NumberShape, 'kind'> = {}): NumberShape => Object.freeze({ kind: 'long', ...c });
export const list = (member: Shape, c: Omit<ListShape, 'kind' | 'member'> = {}): ListShape => Object.freeze({ kind: 'list', member, ...c });
export const map = (value: Shape, c: Omit<MapShape, 'kind' | 'value'> = {}): MapShape => Object.freeze({ kind: 'map', value, ...c });
export const struct = (members: Members, c: Common & { javaName?: string } = {}): StructureShape => Object.freeze({ kind: 'structure', members: Object.freeze(members), ...c });
export const attributeValue = (c: Common = {}): AttributeValueShape => Object.freeze({ kind: 'attributeValue', ...c });
export const attributeMap = (c: Common = {}): AttributeMapShape => Object.freeze({ kind: 'attributeMap', ...c });
export const tableName = (c: Common & { arn?: boolean; dataPlane?: boolean } = {}): TableNameShape => Object.freeze({ kind: 'tableName', arn: true, ...c });
