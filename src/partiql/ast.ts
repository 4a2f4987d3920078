/**
 * PartiQL syntax trees: frozen, tagged with `kind`, with `?` parameters still unbound (a
 * parameter node holds its position), so a parsed statement can be cached and run with any
 * Parameters. compile-statement.ts turns a tree into expression-API requests.
 */

/** A document path: attribute / map-key names and list indexes. */
export type Path = { readonly kind: 'path'; readonly segments: readonly (string | number)[] };

/** A literal as PartiQL writes it, before it becomes an AttributeValue. */
export type Literal =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'null' }
  | { readonly kind: 'list'; readonly items: readonly Value[] }
  | { readonly kind: 'bag'; readonly items: readonly Value[] }
  | { readonly kind: 'tuple'; readonly entries: readonly { readonly key: string; readonly value: Value }[] };

export type Parameter = { readonly kind: 'parameter'; readonly index: number };

/** A value: a literal or a `?` parameter. */
export type Value = Literal | Parameter;

export type Operand =
  | Path
  | Value
  | { readonly kind: 'call'; readonly name: 'size' | 'if_not_exists' | 'list_append' | 'set_add' | 'set_delete'; readonly args: readonly Operand[] }
  | { readonly kind: 'arithmetic'; readonly op: '+' | '-'; readonly left: Operand; readonly right: Operand };

/** The DynamoDB types a PartiQL `IS <type>` tests. */
export type TypeTest = 'NULL' | 'BOOL' | 'S';

export type Comparator = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Condition =
  | { readonly kind: 'and' | 'or'; readonly left: Condition; readonly right: Condition }
  | { readonly kind: 'not'; readonly operand: Condition }
  | { readonly kind: 'compare'; readonly op: Comparator; readonly left: Operand; readonly right: Operand }
  | { readonly kind: 'between'; readonly operand: Operand; readonly low: Operand; readonly high: Operand }
  | { readonly kind: 'in'; readonly operand: Operand; readonly list: readonly Operand[] }
  /** `p IS [NOT] MISSING`, or a type test: `what` is the DynamoDB type (`IS NULL` -> 'NULL', `IS STRING` -> 'S'). */
  | { readonly kind: 'is'; readonly operand: Path; readonly what: 'MISSING' | TypeTest; readonly negated: boolean }
  | {
      readonly kind: 'function';
      readonly name: 'attribute_exists' | 'attribute_not_exists' | 'attribute_type' | 'begins_with' | 'contains';
      readonly args: readonly Operand[];
    };

/** A table, or an index of it (`"Table"."Index"`). */
export type Target = { readonly table: string; readonly index?: string };

export type SelectStatement = {
  readonly kind: 'select';
  /** undefined = `*`. */
  readonly projection?: readonly Path[];
  readonly target: Target;
  readonly where?: Condition;
  readonly orderBy?: { readonly path: Path; readonly descending: boolean };
};

export type InsertStatement = { readonly kind: 'insert'; readonly table: string; readonly item: Value };

/** `RETURNING ALL OLD *` and friends, as UpdateItem/DeleteItem's ReturnValues. */
export type Returning = 'ALL_OLD' | 'ALL_NEW' | 'UPDATED_OLD' | 'UPDATED_NEW';

export type UpdateStatement = {
  readonly kind: 'update';
  readonly table: string;
  readonly sets: readonly { readonly path: Path; readonly value: Operand }[];
  readonly removes: readonly Path[];
  readonly where?: Condition;
  readonly returning?: Returning;
};

export type DeleteStatement = { readonly kind: 'delete'; readonly table: string; readonly where?: Condition; readonly returning?: 'ALL_OLD' };

/** `EXISTS(SELECT ...)`: a condition check inside ExecuteTransaction. */
export type ExistsStatement = { readonly kind: 'exists'; readonly select: SelectStatement };

export type Statement = SelectStatement | InsertStatement | UpdateStatement | DeleteStatement | ExistsStatement;

/** A parsed statement and how many `?` parameters it takes. */
export type ParsedStatement = { readonly statement: Statement; readonly parameterCount: number };
